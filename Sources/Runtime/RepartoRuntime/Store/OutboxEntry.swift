import Foundation
import Postgres

/// A message the outbox relay must publish.
struct OutboxEntry: Sendable {
    var id: UUID
    var kind: String
    var queue: String
    var priority: Int
}
