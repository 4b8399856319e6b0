import Foundation
import Postgres

/// How one attempt ended, as the worker commits it.
public struct JobOutcome: Sendable {
    /// The job's state after the attempt.
    public enum State: String, Sendable {
        case succeeded, failed, dead, cancelled
        /// Handed back (graceful shutdown), or rescheduled at ``JobOutcome/runAt`` (a "retry at"):
        /// queued again, the attempt not counted.
        case queued
    }
    public var id: UUID
    /// The attempt this outcome is for (the fencing token).
    public var attempt: Int
    public var state: State
    /// The handler's result (JSON).
    public var result: Data?
    public var error: String?
    /// For `failed`: seconds until the retry is published.
    public var retryDelay: Double?
    /// For `queued`: rescheduled for this instant (the handler's "retry at"; the relay publishes
    /// it then) instead of handed back to the broker.
    public var runAt: Date?
    /// For `queued`: go on under this limit (``JobError/continueUnder(limit:reason:)``): the job
    /// is published again at once and admitted under it; the limit it ran under is only freed.
    public var continueUnder: String?
    /// The job's actual cost, reported by its handler, which corrects its limit's budget.
    public var actualCost: Double?

    /// A `queued` outcome the relay publishes again (a "retry at" or a move to another limit)
    /// rather than a hand-back to the broker.
    public var isRescheduled: Bool { runAt != nil || continueUnder != nil }
    /// Database effects committed with a success (under a savepoint); only ``WorkerStorage``
    /// implementations in this module run them.
    var effects: [JobEffect] = []
    /// Applied instead when one of `effects` throws (the error text is filled in).
    var onEffectFailure: (@Sendable (String) -> JobOutcome)?

    public init(id: UUID, attempt: Int, state: State, result: Data? = nil, error: String? = nil, retryDelay: Double? = nil,
                runAt: Date? = nil) {
        (self.runAt, self.id, self.attempt, self.state, self.result, self.error, self.retryDelay)
            = (runAt, id, attempt, state, result, error, retryDelay)
    }
}
