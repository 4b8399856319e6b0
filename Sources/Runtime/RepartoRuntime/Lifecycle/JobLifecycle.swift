import Foundation

/// The job lifecycle: the one documented place of its rules.
///
/// ```
/// queued ──claim──▶ running ──succeeded──▶ succeeded
///   ▲                 │ ├──retryable error, attempts left──▶ failed ──(due, relay)──▶ claim again
///   │                 │ ├──attempts spent / permanent error──▶ dead
///   │                 │ ├──cancel requested──▶ cancelled
///   │                 │ ├──handed back (drain)──▶ queued (attempt not counted)
///   │                 │ └──"retry at T" (a 429)──▶ queued, published at T (attempt not counted)
///   │                 └──worker stopped heartbeating (rescue)──▶ failed | dead (crash limit) | cancelled
///   └──operator retry── dead | cancelled
/// waiting (queued, failed) ──cancel──▶ cancelled;   running ──cancel──▶ cancel_requested
/// claim of a paused queue/kind ──▶ parked (published again on resume); over a limit ──▶ deferred
/// (published again when the limit admits it); neither counts an attempt
/// ```
///
/// The set-based work stays in SQL (``JobStore``), one statement for hundreds of jobs. Those
/// statements take their state lists from here (``sqlList(_:)``), and the functions below are
/// their Swift mirror: the same decision for one job, unit-tested without a server, and checked
/// against the SQL by an integration test (`LifecycleAgreementTests`).
public enum JobLifecycle {
    /// Jobs that wait to run once due: the relay publishes them, a worker may claim them.
    public static let waiting: [JobState] = [.queued, .failed]
    /// Jobs with work ahead: a production's stage with any of them is not finished
    /// (the predicate of the partial index `jobs_active_stage`, migration 0006; keep the order).
    public static let active: [JobState] = [.queued, .running, .failed]
    /// States a job ends in; only these move to `job_history`.
    public static let final: [JobState] = [.succeeded, .dead, .cancelled]
    /// Final states an operator's retry queues again.
    public static let retryable: [JobState] = [.dead, .cancelled]
    /// What a production's failures list shows: dead, cancelled, and failed-awaiting-retry jobs.
    public static let unsuccessful: [JobState] = [.dead, .cancelled, .failed]

    /// `('queued', 'failed')`: a state list for SQL. The names come from ``JobState``, never from input.
    public static func sqlList(_ states: [JobState]) -> String {
        "(" + states.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
    }

    /// Every state, written so that PostgreSQL reads a production's jobs through the partial
    /// indexes of its active jobs and of its final ones (`jobs_active_stage`,
    /// `jobs_production_final`): `jobs` keeps no index of a production's jobs in every state
    /// (runtime migration 0019), and a `production_id` condition alone reads the whole table.
    /// Always true (`state` is one of these; a CHECK). Add it beside `production_id = $n` or
    /// `= ANY($n)`: the planner turns the OR into a union of the two indexes only there, not
    /// beside a join's column.
    public static func sqlAnyState(_ column: String = "state") -> String {
        sqlStates(active + final, column)
    }

    /// `column IN states`, and which partial index of a production's jobs holds each of them:
    /// `jobs_active_stage` the active ones, `jobs_production_ended` dead and cancelled ones,
    /// `jobs_production_final` any final one (see ``sqlAnyState(_:)``).
    public static func sqlStates(_ states: [JobState], _ column: String = "state") -> String {
        guard !states.isEmpty else { return "false" }
        var indexed: [String] = []
        let activeOnes = states.filter(active.contains), finalOnes = states.filter(final.contains)
        if !activeOnes.isEmpty { indexed.append("\(column) IN \(sqlList(active))") }
        if !finalOnes.isEmpty {
            indexed.append("\(column) IN \(sqlList(finalOnes.allSatisfy(retryable.contains) ? retryable : final))")
        }
        return "(\(column) IN \(sqlList(states)) AND (\(indexed.joined(separator: " OR "))))"
    }

    // MARK: claim

    /// Whether a worker's claim takes a delivered job: a waiting job that is due. Finished,
    /// cancelled and running jobs are not claimed; their message is only acknowledged. A job
    /// running on a worker that stopped heartbeating is not claimed either: only the rescue
    /// ends that attempt, so each crash is counted (``rescue(cancelRequested:attempts:maxAttempts:loneCrashes:ranAlone:crashLimit:)``).
    /// `ownerAlive` is kept for the callers' symmetry with the running case; it changes nothing.
    public static func canClaim(_ state: JobState, due: Bool, ownerAlive: Bool) -> Bool {
        waiting.contains(state) && due
    }

    // MARK: completion

    /// How a committed attempt changes the job row (the mirror of `JobStore.applyOutcomes`).
    public struct Completion: Sendable, Equatable {
        /// The job's new state.
        public var state: JobState
        /// Whether the relay publishes it again (a scheduled retry).
        public var republish: Bool
        /// Whether the attempt counts (false when handed back on shutdown).
        public var countsAttempt: Bool
        /// Whether the job keeps its worker id (false when handed back).
        public var keepsWorker: Bool
    }

    /// The completion of attempt `attempt` ending in `outcome`, or nil when it is fenced out: the
    /// job is no longer running that attempt (rescued, cancelled, re-claimed).
    /// `rescheduled`: a `queued` outcome with an instant to run again (a "retry at"), which the
    /// relay publishes then; a plain `queued` one is handed back to the broker.
    public static func complete(state: JobState, attempts: Int, outcome: JobState, attempt: Int,
                                rescheduled: Bool = false) -> Completion? {
        guard state == .running, attempts == attempt, outcome != .running else { return nil }
        let handBack = outcome == .queued
        return Completion(state: outcome, republish: outcome == .failed || (handBack && rescheduled),
                          countsAttempt: !handBack, keepsWorker: !handBack)
    }

    // MARK: rescue

    /// What rescue makes of a running job whose worker stopped heartbeating.
    public struct Rescue: Sendable, Equatable {
        public var state: JobState
        /// Whether the relay publishes it again.
        public var republish: Bool
    }

    /// Whether a job is a suspect that a worker runs alone: its last attempt ended with its worker
    /// gone. A worker starts a suspect only when it runs nothing else, and starts nothing beside
    /// it: the jobs running beside a job that kills its worker lose their worker too, and ran
    /// beside it again when they were rescued and delivered together; alone, a suspect's next
    /// crash is its own.
    public static func runsAlone(crashes: Int) -> Bool { crashes > 0 }

    /// The default of a kind's crash limit: a job whose worker died this many times in a row while
    /// it ran alone is dead.
    public static let defaultCrashLimit = 2

    /// A cancel-requested job is cancelled (it must not run again); a job whose worker died
    /// `crashLimit` times in a row while it ran alone (`loneCrashes` before this one, and this one
    /// if `ranAlone`) is dead, and so is a job with its attempts spent; any other is failed and due
    /// now (the lost attempt counts). A crash beside other jobs only makes it a suspect.
    public static func rescue(cancelRequested: Bool, attempts: Int, maxAttempts: Int, loneCrashes: Int = 0,
                              ranAlone: Bool = true, crashLimit: Int = defaultCrashLimit) -> Rescue {
        if cancelRequested { return Rescue(state: .cancelled, republish: false) }
        if loneCrashes + (ranAlone ? 1 : 0) >= crashLimit { return Rescue(state: .dead, republish: false) }
        if attempts >= maxAttempts { return Rescue(state: .dead, republish: false) }
        return Rescue(state: .failed, republish: true)
    }

    // MARK: cancel and retry

    /// What cancelling one job does.
    public enum Cancel: Sendable, Equatable {
        /// A waiting job becomes `cancelled` at once; its message, if delivered, is not claimed.
        case cancelNow
        /// A running job gets `cancel_requested`; its worker stops the handler at its next heartbeat.
        case requestCancel
        /// A finished job keeps its outcome.
        case alreadyFinished
    }

    public static func cancel(_ state: JobState) -> Cancel {
        if waiting.contains(state) { return .cancelNow }
        if state == .running { return .requestCancel }
        return .alreadyFinished
    }

    /// The state an operator's retry gives a job (`queued`, attempts reset), or nil when it has none to retry.
    public static func retry(_ state: JobState) -> JobState? {
        retryable.contains(state) ? .queued : nil
    }

    // MARK: productions

    /// Whether a stage whose jobs are in `states` is finished (none has work ahead).
    public static func isStageFinished(_ states: some Sequence<JobState>) -> Bool {
        !states.contains { active.contains($0) }
    }

    /// Whether a finished production ends `completed_with_failures`.
    public static func finishesWithFailures(dead: Int) -> Bool { dead > 0 }

    // MARK: heartbeats

    /// What a worker's heartbeat learns about one job the database or the worker knows of.
    public enum Ownership: Sendable, Equatable {
        /// Still this worker's, keep running.
        case keep
        /// This worker's, and its cancellation was requested: stop the handler, commit `cancelled`.
        case cancel
        /// No longer this worker's (rescued, then finished, cancelled or claimed elsewhere): stop the
        /// handler; its completion will be fenced out.
        case lost
    }

    /// The mirror of `JobStore.heartbeat`'s classification for a job this worker runs.
    public static func ownership(state: JobState, workerID: String?, me: String, cancelRequested: Bool) -> Ownership {
        guard state == .running, workerID == me else { return .lost }
        return cancelRequested ? .cancel : .keep
    }
}
