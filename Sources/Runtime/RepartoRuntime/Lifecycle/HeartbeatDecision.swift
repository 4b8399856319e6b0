import Foundation

/// What a worker does with its heartbeat's answer: which jobs to mark cancel-requested (their
/// outcome becomes `cancelled`) and which local handlers to stop.
struct HeartbeatDecision: Equatable {
    /// Jobs marked cancel-requested: a running handler stops and commits `cancelled`; a job
    /// claimed but not started yet never starts.
    var markCancelled: Set<UUID>
    /// Handlers to stop: the cancelled ones, and the lost ones (another attempt owns the row now;
    /// their completion is fenced out). Lost jobs are not marked cancelled: the job itself was not
    /// cancelled, and this worker may claim its next attempt.
    var stop: Set<UUID>

    /// The decision for the heartbeat's `cancel` and `lost` ids, given the jobs this worker runs.
    static func decide(cancel: [UUID], lost: [UUID], running: Set<UUID>) -> HeartbeatDecision {
        let lost = Set(lost)
        let cancelled = Set(cancel).subtracting(lost)
        return HeartbeatDecision(markCancelled: cancelled, stop: cancelled.union(lost).intersection(running))
    }
}
