import Foundation
import Postgres

// Workers: claims, completions, heartbeats.
extension JobStore {
    /// Claims delivered jobs for a worker: only jobs waiting to run. Anything else (finished,
    /// cancelled, running here or on a worker that stopped heartbeating) is not claimed: a dead
    /// worker's attempt ends only through the rescue, which counts the crash.
    ///
    /// Jobs under no limit and of no paused queue or kind are claimed by one statement (the fast
    /// path); the others go through ``claimControlled(_:workerID:defaultLimits:on:)``, which parks
    /// paused ones and admits or defers limited ones. `defaultLimits`: kind → its default limit key.
    /// Both steps in one call, on the caller's connection (tests, tools); a worker runs them apart
    /// (``claimFast(_:workerID:defaultLimits:on:)`` on its claims connection, then the rest), each
    /// retried on its own (``PostgresWorkerStorage``). `alone`: suspects may be claimed too (see
    /// ``claimControlled(_:workerID:defaultLimits:alone:on:)``).
    @available(*, noasync)
    static func claim(_ ids: [UUID], workerID: String, defaultLimits: [String: String] = [:], alone: Bool = false,
                      on connection: PostgresConnection) throws -> (claimed: [ClaimedJob], deferred: Int, suspects: [UUID]) {
        let fast = try claimFast(ids, workerID: workerID, defaultLimits: defaultLimits, on: connection)
        guard !fast.rest.isEmpty else { return (fast.claimed, 0, []) }
        let controlled = try connection.transaction {
            try claimControlled(fast.rest, workerID: workerID, defaultLimits: defaultLimits, alone: alone, on: $0)
        }
        return (fast.claimed + controlled.claimed, controlled.deferred, controlled.suspects)
    }

    /// The fast path of ``claim(_:workerID:defaultLimits:alone:on:)``, one statement: the jobs it
    /// claimed, and the rest (finished or running elsewhere, paused, limited, or suspects), in
    /// delivery order.
    @available(*, noasync)
    static func claimFast(_ ids: [UUID], workerID: String, defaultLimits: [String: String] = [:],
                          on connection: PostgresConnection) throws -> (claimed: [ClaimedJob], rest: [UUID]) {
        let kinds = defaultLimits.keys.sorted()
        let claimed = try connection.query(prepared: claimStatement(limitedKinds: !kinds.isEmpty),
                                           kinds.isEmpty ? [ids, workerID] : [ids, workerID, kinds, kinds.map { defaultLimits[$0] ?? "" }])
            .compactMap(claimedJob)
        guard claimed.count < ids.count else { return (claimed, []) }
        let taken = Set(claimed.map(\.id))
        return (claimed, ids.filter { !taken.contains($0) })
    }

    /// The fast path's claim: `$1` the delivered ids, `$2` the worker; with `limitedKinds`, `$3`
    /// and `$4` pair kinds with their default limit keys.
    static func claimStatement(limitedKinds: Bool) -> String {
        // A job with no limit key (the usual case) skips the limits table; with one, a primary-key probe.
        let limitKey = !limitedKinds ? "j.limit_key"
            : "coalesce(j.limit_key, (SELECT d.key FROM unnest($3::text[], $4::text[]) AS d(kind, key) WHERE d.kind = j.kind))"
        // Marked for the rollups' trigger: a claim moves nothing they count (waiting to running,
        // no finish time).
        return """
            WITH \(RollupsMark.cte)
            UPDATE jobs j
            SET state = 'running', attempts = j.attempts + 1, started_at = now(), finished_at = NULL, worker_id = $2,
                publish_pending = false
            WHERE j.id = ANY($1::uuid[]) AND \(RollupsMark.condition) AND \(claimableCondition) AND j.crashes = 0
              AND NOT EXISTS (SELECT 1 FROM pauses p WHERE (p.scope = 'kind' AND p.name = j.kind)
                                                        OR (p.scope = 'queue' AND p.name = j.queue))
              AND (\(limitKey) IS NULL OR NOT EXISTS (SELECT 1 FROM limits l WHERE l.name = \(limitKey)))
            RETURNING \(claimedColumns)
            """
    }

    /// Which delivered jobs a worker may claim: due waiting jobs (see ``JobLifecycle/canClaim(_:due:ownerAlive:)``).
    static let claimableCondition = """
        (j.state IN \(JobLifecycle.sqlList(JobLifecycle.waiting)) AND j.run_after <= now())
        """

    static let claimedColumns = "j.id, j.kind, j.params, j.attempts, j.max_attempts, j.production_id, j.stage, j.timeout_ms, j.rate_limited, j.limit_key, j.last_error"

    static func claimedJob(_ row: PostgresRow) -> ClaimedJob? {
        guard let id = row.uuid("id"), let kind = row.string("kind") else { return nil }
        return ClaimedJob(
            id: id, kind: kind, parameters: Data((row.string("params") ?? "{}").utf8),
            attempt: row.int("attempts") ?? 1, maxAttempts: row.int("max_attempts") ?? 1,
            productionID: row.uuid("production_id"), stage: row.string("stage"),
            timeout: row.int("timeout_ms").map { Double($0) / 1000 }, rateLimited: row.int("rate_limited") ?? 0,
            limitKey: row.string("limit_key"), lastError: row.string("last_error"))
    }

    /// Commits a batch of outcomes in the caller's transaction. Only outcomes whose job is still
    /// running the same attempt apply (a fencing token: a rescued or re-claimed job's old attempt
    /// cannot overwrite the new one). Effects of applied successes run under savepoints.
    /// Returns the applied outcomes (after effect failures were turned into failures).
    @available(*, noasync)
    static func complete(_ outcomes: [JobOutcome], on connection: PostgresConnection) throws -> [JobOutcome] {
        let (final, progressed) = try completeDeferringProgress(outcomes, on: connection)
        try notifyProgress(progressed, on: connection)
        return final
    }

    /// Tells listeners (the coordinator, `watch`, `awaitProduction`) that these productions moved.
    @available(*, noasync)
    static func notifyProgress(_ productions: Set<String>, on connection: PostgresConnection) throws {
        guard !productions.isEmpty else { return }
        try connection.query(prepared: "SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p", [progressChannel, Array(productions)])
    }

    /// Notifies like ``notifyProgress(_:on:)`` in a statement of its own, whose commit does not
    /// wait for the WAL flush (notifying assigns a transaction id, so it has a commit to flush).
    @available(*, noasync)
    static func notifyProgressAsynchronously(_ productions: Set<String>, on connection: PostgresConnection) throws {
        guard !productions.isEmpty else { return }
        try connection.query(prepared: """
            SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, p) FROM unnest($2::text[]) AS p
            """, [progressChannel, productions.sorted()])
    }

    /// Whether an outcome can be committed by ``completeSucceeded(_:on:)``: a success with
    /// nothing else to write (no effects) and nothing to tell the relay.
    static func completesAlone(_ outcome: JobOutcome) -> Bool {
        outcome.state == .succeeded && outcome.effects.isEmpty && !outcome.isRescheduled
    }

    /// Commits successes (``completesAlone(_:)``) in one statement outside a transaction block,
    /// a round trip instead of three (`BEGIN`, the update, `COMMIT`). Jobs under a limit are left
    /// to ``completeDeferringProgress(_:genericPlansSet:on:)``, whose transaction settles their
    /// slot; so are jobs no longer running this attempt (fenced out there too).
    /// The connection's session must have ``completionSessionSettings``.
    /// - Returns: the outcomes applied, and the productions they belong to (to notify).
    @available(*, noasync)
    static func completeSucceeded(_ outcomes: [JobOutcome], on connection: PostgresConnection) throws
        -> (applied: [JobOutcome], progressed: Set<String>) {
        assert(outcomes.allSatisfy(completesAlone), "only plain successes complete alone")
        guard !outcomes.isEmpty else { return ([], []) }
        let rows = try connection.query(prepared: unlimitedCompletionStatement, completionArguments(outcomes))
        let applied = Set(rows.compactMap { $0.uuid("id") })
        return (outcomes.filter { applied.contains($0.id) }, Set(rows.compactMap { $0.string("production_id") }))
    }

    /// Runs ``completeSucceeded(_:on:)``'s statement on no job: it is planned (and the tables and
    /// trigger it touches read) before the first completion needs it.
    @available(*, noasync)
    static func prepareCompletions(on connection: PostgresConnection) throws {
        _ = try connection.query(prepared: unlimitedCompletionStatement, completionArguments([]))
    }

    /// ``complete(_:on:)`` without its progress notification, which the caller sends after the
    /// commit (``notifyProgress(_:on:)``): a transaction that notifies holds PostgreSQL's
    /// notification lock through its commit, WAL flush included, so every worker's completions
    /// (and every producer's enqueues) would queue behind each other's flushes.
    /// - Parameter genericPlansSet: the transaction already has ``completionPlanSettings`` (set with
    ///   its `BEGIN`), so the completion statement needs no `SET LOCAL` round trip of its own.
    @available(*, noasync)
    static func completeDeferringProgress(_ outcomes: [JobOutcome], genericPlansSet: Bool = false,
                                          on connection: PostgresConnection) throws
        -> (outcomes: [JobOutcome], progressed: Set<String>) {
        guard !outcomes.isEmpty else { return ([], []) }
        let (applied, progressed) = try applyOutcomes(outcomes, genericPlansSet: genericPlansSet, on: connection)
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
        return (final, progressed)
    }

    /// ``completionPlanSettings`` for the rest of the caller's transaction, and back to the defaults.
    static let setCompletionPlanSettings = setLocal(completionPlanSettings)
    static let resetPlannerSettings = resetLocal(completionPlanSettings)

    @available(*, noasync)
    private static func applyOutcomes(_ outcomes: [JobOutcome], genericPlansSet: Bool = false,
                                      on connection: PostgresConnection) throws
        -> (applied: Set<UUID>, progressed: Set<String>) {
        // A rescheduled outcome ("retry at") is queued again like a hand-back, but published by
        // the relay at its instant instead of being requeued to the broker.
        // Planned once per connection: re-planning cost more than running it (it reads its jobs
        // through the primary key whatever the batch or the table's statistics, which
        // ClaimPlanTests checks).
        if !genericPlansSet { try connection.execute(setCompletionPlanSettings) }
        let rows = try connection.query(prepared: completionStatement, completionArguments(outcomes))
        var limited: [UUID: (key: String, cost: Double)] = [:]
        for row in rows {
            if let id = row.uuid("id"), let key = row.string("limit_key") { limited[id] = (key, row.double("cost") ?? 1) }
        }
        // The planner's defaults again before anything else this transaction runs (limits, the
        // jobs' own effects); a completion of plain jobs (the usual case) commits right away.
        if !limited.isEmpty || outcomes.contains(where: { $0.continueUnder != nil || !$0.effects.isEmpty }) {
            try connection.execute(resetPlannerSettings)
        }
        let productions = Set(rows.compactMap { $0.string("production_id") })
        if outcomes.contains(where: { $0.state == .failed || $0.isRescheduled }) {
            try connection.notify(outboxChannel, payload: "")
        }
        let applied = Set(rows.compactMap { $0.uuid("id") })
        if !limited.isEmpty {
            try settleLimits(outcomes.filter { applied.contains($0.id) }, limits: limited, on: connection)
        }
        // After the settlement (which frees the limit each moved job ran under): a job that goes
        // on under another limit is admitted under that one, without a reservation.
        let moved = outcomes.filter { applied.contains($0.id) && $0.continueUnder != nil }
        if !moved.isEmpty {
            try connection.query("""
                UPDATE jobs j SET limit_key = u.limit_key, limit_reserved = false
                FROM unnest($1::uuid[], $2::text[]) AS u(id, limit_key)
                WHERE j.id = u.id
                """, [moved.map(\.id), moved.map { $0.continueUnder ?? "" }])
        }
        return (applied, productions)
    }

    /// The planner settings of a claim's and a completion's transaction (with its `BEGIN`). Both
    /// are planned once per connection (re-planning a claim cost more than running it), and both
    /// find their jobs by primary key only. A seq scan is never right for them, yet a generic plan
    /// made while `jobs` was empty or unanalyzed (a new database, a worker started before the
    /// first autovacuum) scanned every running job for each job completed, and was kept as long
    /// as the connection: at 30,000 jobs flat out, 0.6 ms a job instead of 0.08.
    static let idKeyedPlanSettings: KeyValuePairs<String, String> = ["plan_cache_mode": "force_generic_plan", "enable_seqscan": "off"]
    /// ``idKeyedPlanSettings`` for a completion, which joins its outcomes to their jobs: without
    /// nested loops. A generic plan made while `jobs` was empty and vacuumed (every finished job
    /// archived) has the table hold nothing; with a nested loop it put `jobs` outside and read
    /// it whole (or the outcomes again for each job). Hashed, the outcomes meet the jobs read
    /// through their keys (`j.id = ANY($1)`), whatever the plan thought the table held.
    static let completionPlanSettings: KeyValuePairs<String, String> = [
        "plan_cache_mode": "force_generic_plan", "enable_seqscan": "off", "enable_nestloop": "off",
    ]
    /// The session settings of the connection that only completes successes
    /// (``completeSucceeded(_:on:)``): ``completionPlanSettings``; its commits wait for the flush.
    static let completionSessionSettings = Dictionary(uniqueKeysWithValues: completionPlanSettings.map { ($0.key, $0.value) })
    /// The session settings of the connection that only claims: ``idKeyedPlanSettings`` and
    /// commits that do not wait for the WAL flush (see ``PostgresWorkerStorage``).
    static let claimSessionSettings = Dictionary(uniqueKeysWithValues: idKeyedPlanSettings.map { ($0.key, $0.value) })
        .merging(["synchronous_commit": "off"]) { _, claim in claim }

    /// Applies outcomes to the jobs still running the same attempt (the fencing token); `$1` … `$8`
    /// are the outcomes' columns.
    static let completionStatement = completionSQL(condition: "")

    /// The parameters of ``completionStatement`` and ``unlimitedCompletionStatement``.
    private static func completionArguments(_ outcomes: [JobOutcome]) -> [any PostgresEncodable] {
        [
            outcomes.map(\.id),
            outcomes.map { Int32($0.attempt) },
            outcomes.map(\.state.rawValue),
            outcomes.map { $0.result.map(PostgresJSON.init) },
            outcomes.map(\.error),
            outcomes.map(\.retryDelay),
            outcomes.map { $0.runAt?.timeIntervalSince1970 },
            outcomes.map { $0.continueUnder != nil },
        ]
    }

    /// ``completionStatement`` for jobs under no limit only (a limited job's slot is settled in
    /// the completion's transaction): what ``completeSucceeded(_:on:)`` commits on its own.
    /// It counts its jobs in the rollups itself and is marked for their trigger (``RollupsMark``):
    /// the jobs it finishes were running, so each one that has a finish time now moved into a
    /// counted state, and nothing moved out of one. The trigger's pairing of old and new rows cost
    /// more than the update at a few jobs a statement.
    static let unlimitedCompletionStatement = """
        WITH \(RollupsMark.cte),
        done AS (
        \(completionSQL(condition: " AND j.limit_key IS NULL AND \(RollupsMark.condition)",
                         returning: ", j.namespace, j.queue, j.kind, j.state, j.started_at, j.finished_at"))
        ), counted AS (
            INSERT INTO job_stats_delta (namespace, minute, queue, kind, state, bucket, n)
            SELECT namespace, date_trunc('minute', finished_at), queue, kind, state,
                   reparto_latency_bucket(state, started_at, finished_at), count(*)
            FROM done WHERE finished_at IS NOT NULL AND state IN ('succeeded', 'dead', 'cancelled', 'failed')
            GROUP BY 1, 2, 3, 4, 5, 6
        )
        SELECT id, production_id, limit_key, cost FROM done
        """

    private static func completionSQL(condition: String, returning: String = "") -> String {
        """
            UPDATE jobs j SET
                state = u.state,
                result = coalesce(u.result, j.result),
                last_error = coalesce(u.error, j.last_error),
                finished_at = CASE WHEN u.state = 'queued' THEN NULL ELSE now() END,
                -- A "retry at" waits no longer than its limit's block may last (limits.max_block_s, default an hour).
                run_after = CASE WHEN u.run_at IS NOT NULL AND j.limit_key IS NOT NULL
                                 THEN to_timestamp(least(u.run_at, extract(epoch FROM now())
                                      + coalesce((SELECT l.max_block_s FROM limits l WHERE l.name = j.limit_key), \(LimitGate.longestBlock))))
                                 WHEN u.run_at IS NOT NULL THEN to_timestamp(u.run_at) WHEN u.moved THEN now()
                                 WHEN u.delay_s IS NULL THEN j.run_after ELSE now() + make_interval(secs => u.delay_s) END,
                publish_pending = (u.state = 'failed' OR u.run_at IS NOT NULL OR u.moved),
                attempts = CASE WHEN u.state = 'queued' THEN j.attempts - 1 ELSE j.attempts END,
                worker_id = CASE WHEN u.state = 'queued' THEN NULL ELSE j.worker_id END,
                rate_limited = j.rate_limited + (u.run_at IS NOT NULL)::int,
                crashes = CASE WHEN u.state = 'queued' THEN j.crashes ELSE 0 END,
                lone_crashes = CASE WHEN u.state = 'queued' THEN j.lone_crashes ELSE 0 END,
                deferrals = j.deferrals + (u.run_at IS NOT NULL OR u.moved)::int
            FROM unnest($1::uuid[], $2::int4[], $3::text[], $4::jsonb[], $5::text[], $6::float8[], $7::float8[], $8::bool[])
                 AS u(id, attempt, state, result, error, delay_s, run_at, moved)
            WHERE j.id = u.id AND j.id = ANY($1::uuid[]) AND j.state = 'running' AND j.attempts = u.attempt\(condition)
            RETURNING j.id, j.production_id, j.limit_key, coalesce(j.cost, 1) AS cost\(returning)
        """
    }

    /// Registers or refreshes a worker. Returns the ids of its running jobs whose cancellation was
    /// requested (`cancel`), and of the jobs it still runs (`local`) that are no longer its own
    /// (`lost`): rescued by a coordinator that took a late heartbeat for a dead worker's, then
    /// finished, cancelled or claimed elsewhere. `held`: per routing key, the deliveries the worker
    /// holds unclaimed (see ``heldDeliveries(routingKey:on:)``).
    @available(*, noasync)
    static func heartbeat(_ worker: WorkerIdentity, succeeded: Int, failed: Int, inFlight: Int, local: [UUID],
                          held: [String: Int] = [:], on connection: PostgresConnection) throws -> (cancel: [UUID], lost: [UUID]) {
        let heldJSON = PostgresJSON(try JSONEncoder().encode(held))
        try connection.query(prepared: """
            INSERT INTO workers (id, host, pid, queues, concurrency, heartbeat_interval_ms, jobs_succeeded, jobs_failed, in_flight, held)
            VALUES ($1, $2, $3, $4::text[], $5, $6, $7, $8, $9, $10::jsonb)
            ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), stopped_at = NULL, jobs_succeeded = EXCLUDED.jobs_succeeded,
                jobs_failed = EXCLUDED.jobs_failed, in_flight = EXCLUDED.in_flight, held = EXCLUDED.held
            """, [worker.id, worker.host, Int32(worker.pid), worker.queues, worker.concurrency,
                  Int32(exactly: (worker.heartbeatInterval * 1000).rounded()) ?? Int32.max, succeeded, failed, inFlight, heldJSON])
        let rows = try connection.query(prepared: heartbeatLookupStatement, [worker.id, local],
                                        settings: heartbeatLookupPlanSettings)
        let cancel = rows.filter { $0.bool("mine") == true }.compactMap { $0.uuid("id") }
        let lost = rows.filter { $0.bool("mine") != true }.compactMap { $0.uuid("id") }
        return (cancel, lost)
    }

    /// A worker's running jobs whose cancellation was requested (`mine`), and those of `$2` it
    /// no longer owns: `$1` the worker's id, `$2` the jobs it runs.
    static let heartbeatLookupStatement = """
        SELECT id, state = 'running' AND worker_id = $1 AS mine FROM jobs
        WHERE (worker_id = $1 AND state = 'running' AND cancel_requested)
           OR (id = ANY($2::uuid[]) AND (state <> 'running' OR worker_id IS DISTINCT FROM $1))
        """

    /// ``heartbeatLookupStatement`` without sequential scans: its plan, kept by the heartbeat's
    /// connection, was made for an emptied, vacuumed `jobs` as a scan of the whole table.
    static let heartbeatLookupPlanSettings: KeyValuePairs<String, String> = ["enable_seqscan": "off"]

    @available(*, noasync)
    static func markStopped(workerID: String, succeeded: Int, failed: Int, on connection: PostgresConnection) throws {
        // The last heartbeat is up to an interval old: record the final counts too.
        try connection.query("""
            UPDATE workers SET stopped_at = now(), in_flight = 0, held = '{}', jobs_succeeded = $2, jobs_failed = $3 WHERE id = $1
            """, [workerID, succeeded, failed])
    }
}

/// The mark a statement sets for the rollups' trigger (runtime migration 0013): the statement
/// moves nothing the rollups count, or counts its jobs itself. The trigger, fired at the end of
/// that statement, takes the mark back and returns at once. A statement uses ``cte`` in its
/// `WITH` and ``condition`` in its `WHERE` (an unreferenced CTE would not run).
enum RollupsMark {
    static let cte = "unchanged AS MATERIALIZED (SELECT set_config('reparto.rollups', 'unchanged', true) AS mark)"
    static let condition = "(SELECT mark FROM unchanged) = 'unchanged'"
}
