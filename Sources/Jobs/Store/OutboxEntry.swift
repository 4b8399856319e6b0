import Foundation
import Postgres

/// A message the outbox relay must publish.
struct OutboxEntry: Sendable {
    var id: UUID
    var kind: String
    var queue: String
    var priority: Int
    /// The row version the relay read (`xmin`): the mark applies only while it is unchanged.
    var version: String = ""
}
