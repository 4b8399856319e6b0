import Foundation
import Postgres

/// How one attempt ended, as the worker commits it.
struct JobOutcome: Sendable {
    enum State: String, Sendable {
        case succeeded, failed, dead, cancelled
        /// Handed back (graceful shutdown): queued again, the attempt not counted.
        case queued
    }
    var id: UUID
    var attempt: Int
    var state: State
    var result: Data?
    var error: String?
    /// For `failed`: seconds until the retry is published.
    var retryDelay: Double?
    var effects: [JobEffect] = []
    /// Applied instead when one of `effects` throws (the error text is filled in).
    var onEffectFailure: (@Sendable (String) -> JobOutcome)?
}
