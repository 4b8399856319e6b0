import Foundation
import Postgres


/// A job as a worker claimed it.
struct ClaimedJob: Sendable {
    var id: UUID
    var kind: String
    var parameters: Data
    var attempt: Int
    var maxAttempts: Int
    var productionID: UUID?
    var stage: String?
    var timeout: Double?
}
