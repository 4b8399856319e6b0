import Foundation
import Postgres

// The coordinator: rescue and stage transitions.
extension JobStore {
    /// Tries to take the coordinators' leader lock (a session advisory lock, released when the
    /// connection closes); true when this connection holds it.
    @available(*, noasync)
    static func tryLead(lockKey: Int64, on connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT pg_try_advisory_lock($1) AS ok", [lockKey]).first?.bool("ok") ?? false
    }

    /// Fails the running jobs of workers that stopped heartbeating, so the relay runs them again;
    /// a job whose cancellation was requested becomes cancelled instead (it must not run again),
    /// and one whose worker died, while it ran alone, as many times in a row as its kind's crash
    /// limit (`job_kinds`, default ``JobLifecycle/defaultCrashLimit``) is dead: a poison job stops
    /// taking workers down with it. A job that ran beside others is only a suspect (it runs alone
    /// next, ``JobLifecycle/runsAlone(crashes:)``). The mirror is
    /// ``JobLifecycle/rescue(cancelRequested:attempts:maxAttempts:loneCrashes:ranAlone:crashLimit:)``.
    @available(*, noasync)
    static func rescueOrphans(on connection: PostgresConnection) throws -> Int {
        let rows = try connection.query("""
            WITH orphan AS (
                SELECT j.id, j.crashes + 1 AS crashes,
                       j.lone_crashes + (NOT EXISTS (SELECT 1 FROM jobs b WHERE b.worker_id = j.worker_id
                                                       AND b.state = 'running' AND b.id <> j.id))::int AS lone_crashes,
                       coalesce((SELECT k.crash_limit FROM job_kinds k WHERE k.kind = j.kind), \(JobLifecycle.defaultCrashLimit)) AS crash_limit
                FROM jobs j
                WHERE j.state = 'running' AND j.worker_id IS NOT NULL AND NOT EXISTS (
                    SELECT 1 FROM workers w WHERE w.id = j.worker_id AND reparto_worker_alive(w))
                FOR UPDATE OF j
            )
            UPDATE jobs j SET
                crashes = o.crashes, lone_crashes = o.lone_crashes,
                state = CASE WHEN j.cancel_requested THEN 'cancelled'
                             WHEN o.lone_crashes >= o.crash_limit OR j.attempts >= j.max_attempts THEN 'dead' ELSE 'failed' END,
                last_error = CASE WHEN o.lone_crashes >= o.crash_limit AND NOT j.cancel_requested
                                  THEN 'crashed its worker ' || o.lone_crashes || ' times in a row running alone (last: worker '
                                       || coalesce(j.worker_id, '?') || ' stopped heartbeating while running it)'
                                  ELSE 'worker ' || coalesce(j.worker_id, '?') || ' stopped heartbeating while running this job' END,
                finished_at = now(), run_after = now(),
                publish_pending = (j.attempts < j.max_attempts AND o.lone_crashes < o.crash_limit AND NOT j.cancel_requested)
            FROM orphan o
            WHERE j.id = o.id
            RETURNING j.id, j.production_id
            """)
        if rows.count > 0 { try connection.notify(outboxChannel, payload: "") }
        return rows.count
    }

    /// Records the kinds a worker runs with what the rescue needs of them (their crash limits).
    @available(*, noasync)
    static func recordKinds(_ kinds: [(kind: String, crashLimit: Int)], on connection: PostgresConnection) throws {
        guard !kinds.isEmpty else { return }
        try connection.query("""
            INSERT INTO job_kinds (kind, crash_limit)
            SELECT * FROM unnest($1::text[], $2::int2[])
            ON CONFLICT (kind) DO UPDATE SET crash_limit = EXCLUDED.crash_limit, updated_at = now()
            WHERE job_kinds.crash_limit IS DISTINCT FROM EXCLUDED.crash_limit
            """, [kinds.map(\.kind), kinds.map { Int16(clamping: max(1, $0.crashLimit)) }])
    }

    /// The planner settings of the coordinator's looks for jobs left to run: no sequential scans.
    /// With statistics that put every job in one production (a benchmark's batch) the planner
    /// judged its index no better than reading `jobs` whole, and read all 60,000 of its rows on
    /// every pass (15 ms, up to 20 passes a second) while a handful were still to run. Every
    /// table these statements read has an index for them (runtime migration 0016 for running
    /// productions), so no plan is left with a scan the setting penalizes.
    static let stageProbePlanSettings: KeyValuePairs<String, String> = ["enable_seqscan": "off"]

    /// Productions whose current stage has no job left to run.
    @available(*, noasync)
    static func stagesReadyToAdvance(on connection: PostgresConnection) throws -> [(id: UUID, plan: String, stage: String)] {
        try connection.query(prepared: stagesReadyStatement, settings: stageProbePlanSettings).compactMap { row in
                guard let id = row.uuid("id"), let plan = row.string("plan"), let stage = row.string("stage") else { return nil }
                return (id, plan, stage)
            }
    }

    static let stagesReadyStatement = """
        SELECT p.id, p.plan, p.stage FROM productions p
        WHERE p.state = 'running' AND NOT EXISTS (\(stageJobToRun))
        ORDER BY p.created_at
        LIMIT 100
        """

    /// Locks a production for a stage transition; nil when its stage has a job to run (one
    /// enqueued since the candidates were read), or it moved on or ended meanwhile.
    ///
    /// Every enqueue into the production waits for this lock, so it is taken only if the stage
    /// has no job to run in the same statement (at 1,500 jobs/s fed into one batch, the stage
    /// looked done between enqueues about 20 times a second). Under the lock, one statement more
    /// (``stageRecheckStatement``) reads with a fresh snapshot: the lock statement's predates a
    /// job committed while it waited for the lock.
    ///
    /// The caller's transaction begins with ``stageProbePlanSettings``; the recheck sets them back,
    /// for the plan's own statements after it.
    @available(*, noasync)
    static func lockProductionForAdvance(_ id: UUID, stage: String, on connection: PostgresConnection) throws -> ProductionSnapshot? {
        guard let row = try connection.query(prepared: lockIdleStageStatement, [id, stage]).first,
              let checked = try connection.query(prepared: stageRecheckStatement, [id]).first,
              checked.bool("busy") == false else { return nil }
        return ProductionSnapshot(
            id: id, name: row.string("name") ?? "", plan: row.string("plan") ?? "batch", stage: stage,
            parameters: Data((row.string("params") ?? "{}").utf8),
            dead: checked.int("dead") ?? 0, cancelled: checked.int("cancelled") ?? 0)
    }

    /// A job left to run in production `p`'s stage, for the candidates, the lock and its recheck.
    /// It reaches the stage's jobs through the production's row (`j.production_id = p.id`,
    /// `j.stage IS NOT DISTINCT FROM p.stage`): given the id and the stage themselves, the planner
    /// costed the active-stage index, bloated by every job's earlier row versions, above the index
    /// of all of a production's jobs (dropped since, runtime migration 0019), and read all 15,000
    /// of them (20 ms) instead of the few still to run (0.05 ms). `OFFSET 0` keeps it a look per
    /// production: made a join, its plan for an
    /// emptied, vacuumed `jobs` (kept by the coordinator's connection) read the whole active-stage
    /// index for each running production.
    static let stageJobToRun = """
        SELECT 1 FROM jobs j WHERE j.production_id = p.id AND j.stage IS NOT DISTINCT FROM p.stage
          AND j.state IN \(JobLifecycle.sqlList(JobLifecycle.active)) OFFSET 0
        """

    /// Locks production `$1` if it runs stage `$2` and that stage has no job to run.
    static let lockIdleStageStatement = """
        SELECT p.id, p.name, p.plan, p.stage, p.params FROM productions p
        WHERE p.id = $1 AND p.state = 'running' AND p.stage = $2
          AND NOT EXISTS (\(stageJobToRun))
        FOR UPDATE OF p
        """

    /// Under production `$1`'s lock: whether its stage has a job to run after all, and its dead
    /// and cancelled jobs. Only those are counted (runtime migration 0015's index): counting its
    /// succeeded jobs as well read all of its jobs under the lock.
    static let stageRecheckStatement = """
        WITH plans AS MATERIALIZED (SELECT set_config('enable_seqscan', 'on', true) AS seqscan)
        SELECT EXISTS (\(stageJobToRun)) AS busy,
               ended.dead, ended.cancelled
        FROM productions p,
             LATERAL (SELECT count(*) FILTER (WHERE e.state = 'dead') AS dead, count(*) FILTER (WHERE e.state = 'cancelled') AS cancelled
                      FROM jobs e WHERE e.production_id = p.id AND e.state IN ('dead', 'cancelled')) AS ended
        WHERE p.id = $1 AND (SELECT seqscan FROM plans) = 'on'
        """

    // The update and its notification are one statement: a stage transition holds the
    // production's lock, which enqueues into it wait for, until its commit.

    @available(*, noasync)
    static func moveProduction(_ id: UUID, toStage stage: String, on connection: PostgresConnection) throws {
        try connection.query("""
            WITH moved AS (UPDATE productions SET stage = $2, updated_at = now() WHERE id = $1)
            SELECT pg_notify($3, $4)
            """, [id, stage, progressChannel, id.uuidString.lowercased()])
    }

    @available(*, noasync)
    static func finishProduction(_ id: UUID, withFailures: Bool, reason: String? = nil, on connection: PostgresConnection) throws {
        try connection.query("""
            WITH finished AS (
                UPDATE productions SET state = $2, finished_at = now(), updated_at = now(), finish_reason = $3
                WHERE id = $1 AND state = 'running')
            SELECT pg_notify($4, $5)
            """, [id, withFailures ? "completed_with_failures" : "completed", reason, progressChannel, id.uuidString.lowercased()])
    }
}
