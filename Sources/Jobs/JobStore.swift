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

/// A message the outbox relay must publish.
struct OutboxEntry: Sendable {
    var id: UUID
    var kind: String
    var queue: String
    var priority: Int
}

/// All SQL of the job runtime, as blocking functions on a connection the caller owns.
///
/// Every statement is parameterized; batches go through `unnest` of array parameters, so one
/// round trip carries hundreds of jobs.
enum JobStore {
    static let outboxChannel = "reparto_outbox"
    static let progressChannel = "reparto_progress"

    // MARK: producers

    /// Inserts jobs (their outbox entries are the `publish_pending` flag) and wakes the relays.
    /// Returns each request's job id; a request whose idempotency key exists gets the existing id.
    @available(*, noasync)
    static func insert(_ requests: [JobRequest], on connection: PostgresConnection) throws -> [UUID] {
        guard !requests.isEmpty else { return [] }
        let productions = Set(requests.compactMap(\.options.productionID))
        if !productions.isEmpty {
            // Lock first (a coordinator finishing the production waits, then sees these jobs), then
            // reopen a finished batch; a cancelled production or a finished pipeline run takes no jobs.
            try connection.query("SELECT id FROM productions WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE",
                                 [Array(productions)])
            try connection.query("""
                UPDATE productions SET state = 'running', finished_at = NULL, updated_at = now()
                WHERE id = ANY($1::uuid[]) AND plan = 'batch' AND state IN ('completed', 'completed_with_failures')
                """, [Array(productions)])
            let rows = try connection.query("SELECT id, state FROM productions WHERE id = ANY($1::uuid[])", [Array(productions)])
            for row in rows where row.string("state") != "running" {
                throw RepartoError.invalidState("production \(row.string("id") ?? "?") is \(row.string("state") ?? "?"); it takes no new jobs")
            }
            if rows.count != productions.count {
                let found = Set(rows.compactMap { $0.uuid("id") })
                let missing = productions.subtracting(found).first.map(\.uuidString) ?? "?"
                throw RepartoError.notFound(what: "production", id: missing.lowercased())
            }
        }
        let result = try connection.query("""
            INSERT INTO jobs (id, kind, queue, params, priority, max_attempts, timeout_ms, idempotency_key,
                              production_id, stage, run_after)
            SELECT u.id, u.kind, u.queue, u.params, u.priority, u.max_attempts, u.timeout_ms, u.idempotency_key,
                   u.production_id,
                   -- A production's job without a stage belongs to the production's current stage.
                   coalesce(u.stage, (SELECT p.stage FROM productions p WHERE p.id = u.production_id)),
                   coalesce(u.run_after, now())
            FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::int2[], $6::int4[], $7::int4[], $8::text[],
                        $9::uuid[], $10::text[], $11::timestamptz[])
                 AS u(id, kind, queue, params, priority, max_attempts, timeout_ms, idempotency_key, production_id, stage, run_after)
            ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
            RETURNING id
            """, [
                requests.map(\.id),
                requests.map(\.kind),
                requests.map(\.queue),
                requests.map { PostgresJSON($0.parameters) },
                requests.map { Int16($0.options.priority.value) },
                requests.map { Int32(max(1, $0.options.maxAttempts)) },
                requests.map { $0.options.timeout.map { Int32(clamping: Int(($0 * 1000).rounded())) } },
                requests.map(\.options.idempotencyKey),
                requests.map(\.options.productionID),
                requests.map(\.options.stage),
                requests.map(\.options.runAfter),
            ])
        try connection.notify(outboxChannel, payload: "")
        if result.count == requests.count { return requests.map(\.id) }
        // Some idempotency keys already existed: answer with the jobs that hold them.
        let keys = requests.compactMap(\.options.idempotencyKey)
        var existing: [String: UUID] = [:]
        for row in try connection.query("SELECT id, idempotency_key FROM jobs WHERE idempotency_key = ANY($1::text[])", [keys]) {
            if let key = row.string("idempotency_key"), let id = row.uuid("id") { existing[key] = id }
        }
        return requests.map { request in request.options.idempotencyKey.flatMap { existing[$0] } ?? request.id }
    }

    /// Creates a production (a batch, or a multi-stage pipeline run).
    @available(*, noasync)
    static func createProduction(id: UUID, name: String, plan: String, stage: String, parameters: Data,
                                 on connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO productions (id, name, plan, stage, params) VALUES ($1, $2, $3, $4, $5::jsonb)
            ON CONFLICT (id) DO NOTHING
            """, [id, name, plan, stage, PostgresJSON(parameters)])
    }

    // MARK: the outbox relay

    /// Locks up to `limit` due, unpublished jobs for this transaction (other relays skip them).
    @available(*, noasync)
    static func takeOutbox(limit: Int, on connection: PostgresConnection) throws -> [OutboxEntry] {
        try connection.query("""
            SELECT id, kind, queue, priority FROM jobs
            WHERE publish_pending AND run_after <= now() AND state IN ('queued', 'failed')
            ORDER BY run_after
            LIMIT $1
            FOR UPDATE SKIP LOCKED
            """, [limit]).compactMap { row in
                guard let id = row.uuid("id"), let kind = row.string("kind"), let queue = row.string("queue") else { return nil }
                return OutboxEntry(id: id, kind: kind, queue: queue, priority: row.int("priority") ?? 4)
            }
    }

    @available(*, noasync)
    static func markPublished(_ ids: [UUID], on connection: PostgresConnection) throws {
        // Losing this mark in a crash only republishes (consumers drop duplicates at claim time),
        // so it need not wait for the WAL flush.
        try connection.query("SET LOCAL synchronous_commit TO off")
        try connection.query("UPDATE jobs SET publish_pending = false WHERE id = ANY($1::uuid[])", [ids])
    }

    /// Seconds until the next scheduled publish (retries, delayed jobs), if any.
    @available(*, noasync)
    static func secondsUntilNextDue(on connection: PostgresConnection) throws -> Double? {
        try connection.query("""
            SELECT extract(epoch FROM min(run_after) - now())::float8 AS s FROM jobs WHERE publish_pending
            """).first?.double("s")
    }

    /// Rows with publish_pending that are no longer runnable are cleared (cancelled meanwhile).
    @available(*, noasync)
    static func clearStaleOutbox(on connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE jobs SET publish_pending = false
            WHERE publish_pending AND state NOT IN ('queued', 'failed')
            """)
    }

    // MARK: workers

    /// Claims delivered jobs for a worker: only jobs waiting to run, or running on a worker that
    /// stopped heartbeating. Anything else (finished, cancelled, running elsewhere) is not claimed.
    @available(*, noasync)
    static func claim(_ ids: [UUID], workerID: String, on connection: PostgresConnection) throws -> [ClaimedJob] {
        try connection.query("""
            UPDATE jobs j
            SET state = 'running', attempts = j.attempts + 1, started_at = now(), finished_at = NULL, worker_id = $2
            WHERE j.id = ANY($1::uuid[])
              AND ((j.state IN ('queued', 'failed') AND j.run_after <= now())
                   OR (j.state = 'running' AND NOT EXISTS (
                        SELECT 1 FROM workers w WHERE w.id = j.worker_id AND reparto_worker_alive(w))))
            RETURNING j.id, j.kind, j.params, j.attempts, j.max_attempts, j.production_id, j.stage, j.timeout_ms
            """, [ids, workerID]).compactMap { row in
                guard let id = row.uuid("id"), let kind = row.string("kind") else { return nil }
                return ClaimedJob(
                    id: id, kind: kind, parameters: Data((row.string("params") ?? "{}").utf8),
                    attempt: row.int("attempts") ?? 1, maxAttempts: row.int("max_attempts") ?? 1,
                    productionID: row.uuid("production_id"), stage: row.string("stage"),
                    timeout: row.int("timeout_ms").map { Double($0) / 1000 })
            }
    }

    /// Commits a batch of outcomes in the caller's transaction. Only outcomes whose job is still
    /// running the same attempt apply (a fencing token: a rescued or re-claimed job's old attempt
    /// cannot overwrite the new one). Effects of applied successes run under savepoints.
    /// Returns the applied outcomes (after effect failures were turned into failures).
    @available(*, noasync)
    static func complete(_ outcomes: [JobOutcome], on connection: PostgresConnection) throws -> [JobOutcome] {
        guard !outcomes.isEmpty else { return [] }
        let applied = try applyOutcomes(outcomes, on: connection)
        var final: [JobOutcome] = []
        var replacements: [JobOutcome] = []
        for outcome in outcomes where applied.contains(outcome.id) {
            guard !outcome.effects.isEmpty else { final.append(outcome); continue }
            try connection.execute("SAVEPOINT reparto_effect")
            do {
                var result: Data?
                for effect in outcome.effects {
                    if let replacement = try effect(connection) { result = replacement }
                }
                if let result {
                    try connection.query("UPDATE jobs SET result = $2::jsonb WHERE id = $1", [outcome.id, PostgresJSON(result)])
                }
                try connection.execute("RELEASE SAVEPOINT reparto_effect")
                var applied = outcome
                if let result { applied.result = result }
                final.append(applied)
            } catch {
                try connection.execute("ROLLBACK TO SAVEPOINT reparto_effect")
                let text = "committing the job's results failed: \(error)"
                var replacement = outcome.onEffectFailure?(text)
                    ?? JobOutcome(id: outcome.id, attempt: outcome.attempt, state: .dead, error: text)
                replacement.effects = []
                replacements.append(replacement)
            }
        }
        if !replacements.isEmpty {
            // Put the job back to running for the fenced update, then record the failure.
            try connection.query("UPDATE jobs SET state = 'running', finished_at = NULL WHERE id = ANY($1::uuid[])",
                                 [replacements.map(\.id)])
            _ = try applyOutcomes(replacements, on: connection)
            final.append(contentsOf: replacements)
        }
        return final
    }

    @available(*, noasync)
    private static func applyOutcomes(_ outcomes: [JobOutcome], on connection: PostgresConnection) throws -> Set<UUID> {
        let rows = try connection.query("""
            UPDATE jobs j SET
                state = u.state,
                result = coalesce(u.result, j.result),
                last_error = coalesce(u.error, j.last_error),
                finished_at = CASE WHEN u.state = 'queued' THEN NULL ELSE now() END,
                run_after = CASE WHEN u.delay_s IS NULL THEN j.run_after ELSE now() + make_interval(secs => u.delay_s) END,
                publish_pending = (u.state = 'failed'),
                attempts = CASE WHEN u.state = 'queued' THEN j.attempts - 1 ELSE j.attempts END,
                worker_id = CASE WHEN u.state = 'queued' THEN NULL ELSE j.worker_id END
            FROM unnest($1::uuid[], $2::int4[], $3::text[], $4::jsonb[], $5::text[], $6::float8[])
                 AS u(id, attempt, state, result, error, delay_s)
            WHERE j.id = u.id AND j.state = 'running' AND j.attempts = u.attempt
            RETURNING j.id, j.production_id
            """, [
                outcomes.map(\.id),
                outcomes.map { Int32($0.attempt) },
                outcomes.map(\.state.rawValue),
                outcomes.map { $0.result.map(PostgresJSON.init) },
                outcomes.map(\.error),
                outcomes.map(\.retryDelay),
            ])
        let productions = Set(rows.compactMap { $0.string("production_id") })
        if !productions.isEmpty {
            try connection.query("SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p", [progressChannel, Array(productions)])
        }
        if outcomes.contains(where: { $0.state == .failed }) {
            try connection.notify(outboxChannel, payload: "")
        }
        return Set(rows.compactMap { $0.uuid("id") })
    }

    /// Registers or refreshes a worker. Returns the ids of its running jobs whose cancellation was
    /// requested (`cancel`), and of the jobs it still runs (`local`) that are no longer its own
    /// (`lost`): rescued by a coordinator that took a late heartbeat for a dead worker's, then
    /// finished, cancelled or claimed elsewhere.
    @available(*, noasync)
    static func heartbeat(_ worker: WorkerIdentity, succeeded: Int, failed: Int, inFlight: Int, local: [UUID],
                          on connection: PostgresConnection) throws -> (cancel: [UUID], lost: [UUID]) {
        try connection.query("""
            INSERT INTO workers (id, host, pid, queues, concurrency, heartbeat_interval_ms, jobs_succeeded, jobs_failed, in_flight)
            VALUES ($1, $2, $3, $4::text[], $5, $6, $7, $8, $9)
            ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), stopped_at = NULL, jobs_succeeded = EXCLUDED.jobs_succeeded,
                jobs_failed = EXCLUDED.jobs_failed, in_flight = EXCLUDED.in_flight
            """, [worker.id, worker.host, Int32(worker.pid), worker.queues, worker.concurrency,
                  Int32(worker.heartbeatInterval * 1000), succeeded, failed, inFlight])
        let rows = try connection.query("""
            SELECT id, state = 'running' AND worker_id = $1 AS mine FROM jobs
            WHERE (worker_id = $1 AND state = 'running' AND cancel_requested)
               OR (id = ANY($2::uuid[]) AND (state <> 'running' OR worker_id IS DISTINCT FROM $1))
            """, [worker.id, local])
        let cancel = rows.filter { $0.bool("mine") == true }.compactMap { $0.uuid("id") }
        let lost = rows.filter { $0.bool("mine") != true }.compactMap { $0.uuid("id") }
        return (cancel, lost)
    }

    @available(*, noasync)
    static func markStopped(workerID: String, succeeded: Int, failed: Int, on connection: PostgresConnection) throws {
        // The last heartbeat is up to an interval old: record the final counts too.
        try connection.query("""
            UPDATE workers SET stopped_at = now(), in_flight = 0, jobs_succeeded = $2, jobs_failed = $3 WHERE id = $1
            """, [workerID, succeeded, failed])
    }

    // MARK: the coordinator

    /// Fails the running jobs of workers that stopped heartbeating, so the relay runs them again;
    /// a job whose cancellation was requested becomes cancelled instead (it must not run again).
    @available(*, noasync)
    static func rescueOrphans(on connection: PostgresConnection) throws -> Int {
        let rows = try connection.query("""
            UPDATE jobs j SET
                state = CASE WHEN j.cancel_requested THEN 'cancelled'
                             WHEN j.attempts >= j.max_attempts THEN 'dead' ELSE 'failed' END,
                last_error = 'worker ' || coalesce(j.worker_id, '?') || ' stopped heartbeating while running this job',
                finished_at = now(), run_after = now(),
                publish_pending = (j.attempts < j.max_attempts AND NOT j.cancel_requested)
            WHERE j.state = 'running' AND NOT EXISTS (
                SELECT 1 FROM workers w WHERE w.id = j.worker_id AND reparto_worker_alive(w))
            RETURNING j.id, j.production_id
            """)
        if rows.count > 0 { try connection.notify(outboxChannel, payload: "") }
        return rows.count
    }

    /// Productions whose current stage has no job left to run.
    @available(*, noasync)
    static func stagesReadyToAdvance(on connection: PostgresConnection) throws -> [(id: UUID, plan: String, stage: String)] {
        try connection.query("""
            SELECT p.id, p.plan, p.stage FROM productions p
            WHERE p.state = 'running' AND NOT EXISTS (
                SELECT 1 FROM jobs j WHERE j.production_id = p.id AND j.stage IS NOT DISTINCT FROM p.stage
                  AND j.state IN ('queued', 'running', 'failed'))
            ORDER BY p.created_at
            LIMIT 100
            """).compactMap { row in
                guard let id = row.uuid("id"), let plan = row.string("plan"), let stage = row.string("stage") else { return nil }
                return (id, plan, stage)
            }
    }

    /// Locks a production for a stage transition; nil when it moved on or ended meanwhile.
    @available(*, noasync)
    static func lockProductionForAdvance(_ id: UUID, stage: String, on connection: PostgresConnection) throws -> ProductionSnapshot? {
        guard let row = try connection.query("""
            SELECT id, name, plan, stage, params FROM productions WHERE id = $1 AND state = 'running' AND stage = $2 FOR UPDATE
            """, [id, stage]).first else { return nil }
        let active = try connection.query("""
            SELECT count(*) AS n FROM jobs WHERE production_id = $1 AND stage = $2 AND state IN ('queued', 'running', 'failed')
            """, [id, stage]).first?.int("n") ?? 0
        guard active == 0 else { return nil }
        let counts = try connection.query("""
            SELECT count(*) FILTER (WHERE state = 'succeeded') AS ok, count(*) FILTER (WHERE state = 'dead') AS dead,
                   count(*) FILTER (WHERE state = 'cancelled') AS cancelled
            FROM jobs WHERE production_id = $1
            """, [id]).first
        return ProductionSnapshot(
            id: id, name: row.string("name") ?? "", plan: row.string("plan") ?? "batch", stage: stage,
            parameters: Data((row.string("params") ?? "{}").utf8),
            succeeded: counts?.int("ok") ?? 0, dead: counts?.int("dead") ?? 0, cancelled: counts?.int("cancelled") ?? 0)
    }

    @available(*, noasync)
    static func moveProduction(_ id: UUID, toStage stage: String, on connection: PostgresConnection) throws {
        try connection.query("UPDATE productions SET stage = $2, updated_at = now() WHERE id = $1", [id, stage])
        try connection.notify(progressChannel, payload: id.uuidString.lowercased())
    }

    @available(*, noasync)
    static func finishProduction(_ id: UUID, withFailures: Bool, on connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE productions SET state = $2, finished_at = now(), updated_at = now() WHERE id = $1 AND state = 'running'
            """, [id, withFailures ? "completed_with_failures" : "completed"])
        try connection.notify(progressChannel, payload: id.uuidString.lowercased())
    }

    // MARK: cancel and retry

    /// Cancels a production: its waiting jobs will not run, running ones are asked to stop,
    /// finished results stay. Returns false when there is no running production with that id.
    @available(*, noasync)
    static func cancelProduction(_ id: UUID, on connection: PostgresConnection) throws -> Bool {
        let updated = try connection.query("""
            UPDATE productions SET state = 'cancelled', finished_at = now(), updated_at = now()
            WHERE id = $1 AND state = 'running' RETURNING id
            """, [id])
        guard updated.count == 1 else { return false }
        try connection.query("""
            UPDATE jobs SET state = 'cancelled', publish_pending = false, finished_at = now()
            WHERE production_id = $1 AND state IN ('queued', 'failed')
            """, [id])
        try connection.query("UPDATE jobs SET cancel_requested = true WHERE production_id = $1 AND state = 'running'", [id])
        try connection.notify(progressChannel, payload: id.uuidString.lowercased())
        return true
    }

    /// Cancels one job; false when it already finished.
    @available(*, noasync)
    static func cancelJob(_ id: UUID, on connection: PostgresConnection) throws -> Bool {
        let waiting = try connection.query("""
            UPDATE jobs SET state = 'cancelled', publish_pending = false, finished_at = now()
            WHERE id = $1 AND state IN ('queued', 'failed') RETURNING id
            """, [id])
        if waiting.count == 1 { return true }
        let running = try connection.query(
            "UPDATE jobs SET cancel_requested = true WHERE id = $1 AND state = 'running' RETURNING id", [id])
        return running.count == 1
    }

    /// Queues dead or cancelled jobs again with fresh attempts: one job, or a production's.
    ///
    /// For a production, only the earliest stage that has such jobs runs again and the production
    /// goes back to that stage, so the coordinator re-plans the later stages from there (a
    /// table read regenerates the failed lines, then assembles again). Dead or cancelled jobs of
    /// later stages are superseded: they become cancelled, keeping their error. A production with
    /// nothing to re-run is left as it is.
    @available(*, noasync)
    static func retry(jobs ids: [UUID]?, production: UUID?, on connection: PostgresConnection) throws -> Int {
        var stageFilter: String?
        if let production {
            guard let first = try connection.query("""
                SELECT stage FROM jobs WHERE production_id = $1 AND state IN ('dead', 'cancelled')
                ORDER BY created_at, id LIMIT 1
                """, [production]).first else { return 0 }
            stageFilter = first.string("stage")
            try connection.query("""
                UPDATE productions SET state = 'running', stage = coalesce($2, stage), finished_at = NULL, updated_at = now()
                WHERE id = $1
                """, [production, stageFilter])
            try connection.query("""
                UPDATE jobs SET state = 'cancelled', last_error = coalesce(last_error || ' ', '') || '(superseded by a retry)'
                WHERE production_id = $1 AND state = 'dead' AND stage IS DISTINCT FROM $2
                """, [production, stageFilter])
        }
        let rows = try connection.query("""
            UPDATE jobs SET state = 'queued', attempts = 0, publish_pending = true, run_after = now(),
                finished_at = NULL, cancel_requested = false
            WHERE state IN ('dead', 'cancelled')
              AND (id = ANY($1::uuid[]) OR (production_id = $2 AND stage IS NOT DISTINCT FROM $3))
            RETURNING id
            """, [ids ?? [], production, stageFilter])
        try connection.notify(outboxChannel, payload: "")
        if let production { try connection.notify(progressChannel, payload: production.uuidString.lowercased()) }
        return rows.count
    }

    // MARK: lookups

    @available(*, noasync)
    static func job(_ id: UUID, on connection: PostgresConnection) throws -> JobRecord? {
        try connection.query("""
            SELECT id, kind, queue, state, attempts, max_attempts, priority, production_id, stage, idempotency_key,
                   created_at, started_at, finished_at, worker_id, result, last_error, params
            FROM jobs WHERE id = $1
            """, [id]).first.flatMap(JobRecord.init(row:))
    }

    @available(*, noasync)
    static func productionExists(_ id: UUID, on connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT 1 FROM productions WHERE id = $1", [id]).count == 1
    }

    @available(*, noasync)
    static func progress(_ id: UUID, on connection: PostgresConnection) throws -> ProductionProgress? {
        guard var progress = try connection.query("SELECT * FROM ops.production_progress WHERE id = $1", [id]).first
            .flatMap(ProductionProgress.init(row:)) else { return nil }
        progress.stages = try connection.query("""
            SELECT coalesce(stage, '') AS stage, count(*) AS total,
                   count(*) FILTER (WHERE state = 'queued' OR state = 'failed') AS queued,
                   count(*) FILTER (WHERE state = 'running') AS running,
                   count(*) FILTER (WHERE state = 'succeeded') AS succeeded,
                   count(*) FILTER (WHERE state = 'dead') AS dead,
                   count(*) FILTER (WHERE state = 'cancelled') AS cancelled
            FROM jobs WHERE production_id = $1 GROUP BY stage ORDER BY min(created_at)
            """, [id]).map { row in
                StageProgress(stage: row.string("stage") ?? "", total: row.int("total") ?? 0, queued: row.int("queued") ?? 0,
                              running: row.int("running") ?? 0, succeeded: row.int("succeeded") ?? 0,
                              failed: row.int("dead") ?? 0, cancelled: row.int("cancelled") ?? 0)
            }
        return progress
    }
}
