/// Graceful shutdown (SIGTERM/SIGINT) as a pure decision: the worker stops consuming, then asks
/// this after each change until it says to hand back what is left.
enum DrainDecision: Equatable {
    /// In-flight jobs may still finish: wait for the next one to end (or the deadline).
    case wait
    /// Nothing runs any more: commit and close.
    case finished
    /// The drain timeout is over: cancel the jobs still running; their outcomes are handed back
    /// (`queued`, attempt not counted) and their messages requeued.
    case handBack(count: Int)

    /// The decision with `running` jobs in flight, at `now`, for a drain that ends at `deadline`.
    static func next(running: Int, now: ContinuousClock.Instant, deadline: ContinuousClock.Instant) -> DrainDecision {
        if running == 0 { return .finished }
        return now < deadline ? .wait : .handBack(count: running)
    }
}
