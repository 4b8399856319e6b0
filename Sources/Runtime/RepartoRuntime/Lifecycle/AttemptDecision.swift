import Foundation

/// The worker's decisions about one attempt, as pure functions of what it knows: no clock, no
/// connection, no task. `Worker` gathers the facts, calls these, and carries out the answer.
enum AttemptDecision {
    /// What to do with a claimed job when a handler slot frees up.
    enum Start: Equatable {
        /// Run the handler.
        case run
        /// Shutting down: hand the job back (`queued`, attempt not counted, message requeued).
        case handBack
        /// Cancelled while it waited for a slot: it never starts.
        case cancel
    }

    static func start(draining: Bool, cancelRequested: Bool) -> Start {
        if draining { return .handBack }
        if cancelRequested { return .cancel }
        return .run
    }

    /// The outcome of a handler that returned `result`. Effects are attached by the worker.
    static func succeeded(_ job: ClaimedJob, result: Data?) -> JobOutcome {
        JobOutcome(id: job.id, attempt: job.attempt, state: .succeeded, result: result)
    }

    /// The outcome of a handler that threw `error`.
    ///
    /// - A requested cancel wins: `cancelled`.
    /// - Stopped by the drain (a cancellation while shutting down): handed back, `queued`.
    /// - A "continue under L" (``JobError/continueUnder(limit:reason:)``): `queued` at once with the
    ///   attempt not counted, to be admitted under L.
    /// - A "retry at T" (``RetryAtError``, a provider's 429): rescheduled for T, `queued` with the
    ///   attempt not counted, up to ``maxRetryAt`` times; after that an ordinary failed attempt.
    /// - Otherwise a failure: retried with backoff while attempts remain and the error is
    ///   retryable (``isRetryable(_:)``), else `dead`.
    /// `timedOutAfter`: the job's timeout (seconds) when its deadline passed and stopped it; the
    /// attempt then fails as ``JobError/timedOut(seconds:)`` (retryable), whatever the handler threw.
    static func threw(_ job: ClaimedJob, error: any Error, cancelRequested: Bool, draining: Bool, taskCancelled: Bool,
                      timedOutAfter: Double? = nil,
                      policy: RetryPolicy, using generator: inout some RandomNumberGenerator) -> JobOutcome {
        if cancelRequested {
            return JobOutcome(id: job.id, attempt: job.attempt, state: .cancelled, error: "cancelled while running")
        }
        if draining && (error is CancellationError || taskCancelled) {
            return JobOutcome(id: job.id, attempt: job.attempt, state: .queued)
        }
        if timedOutAfter == nil, case .continueUnder(let limit, let reason)? = error as? JobError {
            var moved = JobOutcome(id: job.id, attempt: job.attempt, state: .queued, error: reason)
            moved.continueUnder = limit
            return moved
        }
        if timedOutAfter == nil, let instant = (error as? any RetryAtError)?.retryAt, job.rateLimited < maxRetryAt {
            return JobOutcome(id: job.id, attempt: job.attempt, state: .queued, error: "\(error)", runAt: instant)
        }
        if let timedOutAfter {
            let timeout = JobError.timedOut(seconds: timedOutAfter)
            return failure(job, text: "\(timeout)", retryable: isRetryable(timeout), policy: policy, using: &generator)
        }
        return failure(job, text: "\(error)", retryable: isRetryable(error), policy: policy, using: &generator)
    }

    /// How many times one job may be rescheduled by "retry at" before such an answer counts as a
    /// failed attempt (a service that says "later" forever must not keep a job alive forever).
    static let maxRetryAt = 25

    /// The outcome when a claimed job's kind is not registered here (not retryable: it fails the same way).
    static func unknownKind(_ job: ClaimedJob) -> JobOutcome {
        var generator = SystemRandomNumberGenerator()
        return failure(job, text: "\(JobError.unknownKind(job.kind))", retryable: isRetryable(JobError.unknownKind(job.kind)),
                       policy: RetryPolicy(), using: &generator)
    }

    /// Whether an error may succeed on a later attempt: a ``RetryableError`` says so itself;
    /// bad parameters (`DecodingError`) never do; anything else may.
    static func isRetryable(_ error: any Error) -> Bool {
        (error as? any RetryableError)?.isRetryable ?? !(error is DecodingError)
    }

    /// A failed attempt: `failed` with the policy's delay while attempts remain and the error is
    /// retryable, else `dead` (saying so when the attempts ran out).
    static func failure(_ job: ClaimedJob, text: String, retryable: Bool, policy: RetryPolicy,
                        using generator: inout some RandomNumberGenerator) -> JobOutcome {
        if retryable && job.attempt < job.maxAttempts {
            return JobOutcome(id: job.id, attempt: job.attempt, state: .failed, error: text,
                              retryDelay: policy.delay(afterAttempt: job.attempt, using: &generator))
        }
        let reason = retryable ? "\(text) (gave up after \(job.attempt) attempts)" : text
        return JobOutcome(id: job.id, attempt: job.attempt, state: .dead, error: reason)
    }

    /// What the worker does with a delivery once its outcome is committed (`nil`: fenced out or
    /// not applied), and how it counts.
    struct Acknowledgement: Equatable {
        enum Delivery: Equatable {
            /// Done with the message (succeeded, cancelled, fenced out, or a retry or a reschedule the relay republishes).
            case ack
            /// Rejected without requeue: to the dead-letter queue.
            case deadLetter
            /// Rejected with requeue: handed back on shutdown.
            case requeue
        }
        var delivery: Delivery
        var succeeded: Bool = false
        var failed: Bool = false
        var retried: Bool = false
        var dead: Bool = false
        var rescheduled: Bool = false
    }

    /// `rescheduled`: a `queued` outcome with a ``JobOutcome/runAt`` (the relay publishes it then).
    static func acknowledgement(for committed: JobOutcome.State?, rescheduled: Bool = false) -> Acknowledgement {
        switch committed {
        case .succeeded?: return Acknowledgement(delivery: .ack, succeeded: true)
        case .failed?: return Acknowledgement(delivery: .ack, failed: true, retried: true)
        case .dead?: return Acknowledgement(delivery: .deadLetter, failed: true, dead: true)
        case .queued?: return Acknowledgement(delivery: rescheduled ? .ack : .requeue, rescheduled: rescheduled)
        case .cancelled?, nil: return Acknowledgement(delivery: .ack)
        }
    }
}
