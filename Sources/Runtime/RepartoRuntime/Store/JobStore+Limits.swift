import Foundation
import Postgres

// Limits: definitions, admission at claim time, and what a finished job gives back.
extension JobStore {
    // MARK: definitions

    /// Creates or replaces a limit. A new limit starts with full buckets; a changed one keeps its
    /// levels (capped to the new sizes) but not a block a provider's `Retry-After` left (an
    /// operator setting the limit knows better), and its waiting jobs are re-admitted under the
    /// new terms.
    @available(*, noasync)
    static func setLimit(_ spec: LimitSpec, on connection: PostgresConnection) throws {
        try connection.query(limitInsert + """
            ON CONFLICT (name) DO UPDATE SET
                rate = EXCLUDED.rate, burst = EXCLUDED.burst, concurrency = EXCLUDED.concurrency,
                budget = EXCLUDED.budget, budget_window_s = EXCLUDED.budget_window_s, max_block_s = EXCLUDED.max_block_s,
                tokens = least(limits.tokens, coalesce(EXCLUDED.burst, 0)),
                budget_left = least(limits.budget_left, coalesce(EXCLUDED.budget, 0)),
                blocked_until = NULL,
                -- A block moved the buckets' time to its end; they refill from now instead.
                refilled_at = least(limits.refilled_at, now()),
                paced_until = CASE WHEN EXCLUDED.rate IS NULL THEN NULL
                                   ELSE least(limits.paced_until, now() + make_interval(secs => EXCLUDED.burst / EXCLUDED.rate)) END,
                updated_at = now()
            """, limitParameters(spec))
        try releaseWaiting(limit: spec.name, on: connection)
    }

    private static func limitParameters(_ spec: LimitSpec) -> [any PostgresEncodable & Sendable] {
        [spec.name, spec.rate, spec.burst, spec.concurrency.map { Int32(clamping: $0) }, spec.budget, spec.budgetWindow, spec.maxBlock]
    }

    /// A new limit's row with full buckets; parameters: name, rate, burst, concurrency, budget, window.
    private static let limitInsert = """
            INSERT INTO limits (name, rate, burst, concurrency, budget, budget_window_s, tokens, budget_left, max_block_s)
            VALUES ($1, $2::float8, $3::float8, $4::int4, $5::float8, $6::float8, coalesce($3::float8, 0), coalesce($5::float8, 0),
                    $7::float8)

        """

    /// Creates a limit unless one of its name exists (an operator's own terms stay). True when created.
    @available(*, noasync)
    static func addLimitIfAbsent(_ spec: LimitSpec, on connection: PostgresConnection) throws -> Bool {
        try connection.query(limitInsert + """
            ON CONFLICT (name) DO NOTHING
            RETURNING name
            """, limitParameters(spec)).count == 1
    }

    /// Deletes a limit; its waiting jobs are published at once (they run unlimited). False when none had the name.
    @available(*, noasync)
    static func deleteLimit(_ name: String, on connection: PostgresConnection) throws -> Bool {
        let deleted = try connection.query("DELETE FROM limits WHERE name = $1 RETURNING name", [name]).count > 0
        if deleted { try releaseWaiting(limit: name, on: connection) }
        return deleted
    }

    @available(*, noasync)
    private static func releaseWaiting(limit: String, on connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE jobs SET run_after = now(), limit_reserved = false
            WHERE publish_pending AND limit_key = $1 AND run_after > now() AND run_after < 'infinity'
              AND state IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
            """, [limit])
        try connection.notify(outboxChannel, payload: "")
    }

    /// Every limit with its current use: buckets brought up to now, running and waiting jobs.
    @available(*, noasync)
    static func limits(on connection: PostgresConnection) throws -> [LimitUsage] {
        let now = try databaseNow(on: connection)
        return try connection.query("""
            SELECT l.*, extract(epoch FROM l.refilled_at)::float8 AS refilled, extract(epoch FROM l.blocked_until)::float8 AS blocked,
                   extract(epoch FROM l.paced_until)::float8 AS paced,
                   o.running, o.waiting
            FROM limits l JOIN ops.limits o ON o.name = l.name ORDER BY l.name
            """).map { row in
                var gate = gate(from: row, running: row.int("running") ?? 0)
                gate.refill(at: now)
                return LimitUsage(gate: gate, waiting: row.int("waiting") ?? 0, now: now)
            }
    }

    @available(*, noasync)
    static func databaseNow(on connection: PostgresConnection) throws -> Date {
        let seconds = try connection.query("SELECT extract(epoch FROM clock_timestamp())::float8 AS now").first?.double("now")
        return Date(timeIntervalSince1970: seconds ?? Date().timeIntervalSince1970)
    }

    private static func gate(from row: PostgresRow, running: Int) -> LimitGate {
        let spec = LimitSpec(name: row.string("name") ?? "", rate: row.double("rate"), burst: row.double("burst"),
                             concurrency: row.int("concurrency"), budget: row.double("budget"),
                             budgetWindow: row.double("budget_window_s"), maxBlock: row.double("max_block_s"))
        return LimitGate(spec: spec, tokens: row.double("tokens") ?? 0, budgetLeft: row.double("budget_left") ?? 0,
                         refilledAt: Date(timeIntervalSince1970: row.double("refilled") ?? 0),
                         blockedUntil: row.double("blocked").map(Date.init(timeIntervalSince1970:)),
                         pacedUntil: row.double("paced").map(Date.init(timeIntervalSince1970:)), running: running)
    }

    // MARK: admission (the claim's controlled path)

    /// The claim of delivered jobs that the fast claim left: paused ones are parked, limited ones
    /// admitted or deferred, the rest claimed. Runs in the caller's transaction; locks the jobs in
    /// id order, then their limits in name order (the same order everywhere: no deadlock).
    ///
    /// Suspects (jobs whose last attempt ended with their worker gone, ``JobLifecycle/runsAlone(crashes:)``)
    /// are claimed only when `alone` (the worker runs nothing else); otherwise they are left as
    /// they are and returned, for the worker to claim alone later.
    @available(*, noasync)
    static func claimControlled(_ ids: [UUID], workerID: String, defaultLimits: [String: String], alone: Bool = false,
                                on connection: PostgresConnection) throws -> (claimed: [ClaimedJob], deferred: Int, suspects: [UUID]) {
        let kinds = defaultLimits.keys.sorted()
        let found = try connection.query("""
            SELECT j.id, j.priority, extract(epoch FROM j.created_at)::float8 AS created, j.crashes,
                   coalesce(j.limit_key, d.key) AS limit_key, coalesce(j.cost, 1) AS cost, j.limit_reserved,
                   EXISTS (SELECT 1 FROM pauses p WHERE (p.scope = 'kind' AND p.name = j.kind)
                                                    OR (p.scope = 'queue' AND p.name = j.queue)) AS paused
            FROM jobs j LEFT JOIN unnest($2::text[], $3::text[]) AS d(kind, key) ON d.kind = j.kind
            WHERE j.id = ANY($1::uuid[]) AND \(claimableCondition)
            ORDER BY j.id
            FOR UPDATE OF j
            """, [ids, kinds, kinds.map { defaultLimits[$0] ?? "" }]).compactMap(ClaimCandidate.init)
        let suspects = alone ? [] : found.filter { JobLifecycle.runsAlone(crashes: $0.crashes) }.map(\.id)
        let candidates = alone ? found : found.filter { !JobLifecycle.runsAlone(crashes: $0.crashes) }
        guard !candidates.isEmpty else { return ([], 0, suspects) }

        let paused = candidates.filter(\.paused).map(\.id)
        if !paused.isEmpty {
            try connection.query("""
                UPDATE jobs j SET publish_pending = true, run_after = 'infinity', deferrals = j.deferrals + 1,
                    state = CASE WHEN j.state = 'running' THEN 'failed' ELSE j.state END,
                    finished_at = CASE WHEN j.state = 'running' THEN now() ELSE j.finished_at END
                WHERE j.id = ANY($1::uuid[])
                """, [paused])
        }

        let open = candidates.filter { !$0.paused }
        let keys = Array(Set(open.compactMap(\.limitKey))).sorted()
        var gates: [String: LimitGate] = [:]
        if !keys.isEmpty {
            let rows = try connection.query("""
                SELECT *, extract(epoch FROM refilled_at)::float8 AS refilled, extract(epoch FROM blocked_until)::float8 AS blocked,
                       extract(epoch FROM paced_until)::float8 AS paced
                FROM limits WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE
                """, [keys])
            var running: [String: Int] = [:]
            if !rows.isEmpty {
                for row in try connection.query("""
                    SELECT j.limit_key, count(*) AS n FROM jobs j
                    WHERE j.limit_key = ANY($1::text[]) AND j.state = 'running'
                      AND EXISTS (SELECT 1 FROM workers w WHERE w.id = j.worker_id AND reparto_worker_alive(w))
                    GROUP BY j.limit_key
                    """, [keys]) {
                    if let key = row.string("limit_key") { running[key] = row.int("n") ?? 0 }
                }
            }
            for row in rows {
                let name = row.string("name") ?? ""
                gates[name] = gate(from: row, running: running[name] ?? 0)
            }
        }

        var admitted: [(id: UUID, limitKey: String?)] = []
        var waits: [(id: UUID, until: Date, reserved: Bool, limitKey: String)] = []
        let now = gates.isEmpty ? Date() : try databaseNow(on: connection)
        // Higher priority first, then the oldest.
        let order = open.sorted { $0.priority != $1.priority ? $0.priority > $1.priority : $0.created < $1.created }
        for candidate in order {
            guard let key = candidate.limitKey, var gate = gates[key] else {
                admitted.append((candidate.id, nil))
                continue
            }
            switch gate.admit(LimitGate.Request(id: candidate.id, cost: candidate.cost, reserved: candidate.reserved), at: now) {
            case .run: admitted.append((candidate.id, key))
            case .wait(let until, let reserved): waits.append((candidate.id, until, reserved, key))
            }
            gates[key] = gate
        }

        if !gates.isEmpty {
            let changed = gates.values.sorted { $0.spec.name < $1.spec.name }
            try connection.query("""
                UPDATE limits l SET tokens = u.tokens, budget_left = u.budget_left, refilled_at = to_timestamp(u.refilled),
                    paced_until = to_timestamp(u.paced)
                FROM unnest($1::text[], $2::float8[], $3::float8[], $4::float8[], $5::float8[])
                    AS u(name, tokens, budget_left, refilled, paced)
                WHERE l.name = u.name
                """, [changed.map(\.spec.name), changed.map(\.tokens), changed.map(\.budgetLeft),
                      changed.map(\.refilledAt.timeIntervalSince1970), changed.map { $0.pacedUntil?.timeIntervalSince1970 }])
        }
        if !waits.isEmpty {
            try connection.query("""
                UPDATE jobs j SET publish_pending = true, run_after = to_timestamp(u.at), limit_reserved = u.reserved,
                    limit_key = u.limit_key, deferrals = j.deferrals + 1,
                    state = CASE WHEN j.state = 'running' THEN 'failed' ELSE j.state END,
                    finished_at = CASE WHEN j.state = 'running' THEN now() ELSE j.finished_at END
                FROM unnest($1::uuid[], $2::float8[], $3::bool[], $4::text[]) AS u(id, at, reserved, limit_key)
                WHERE j.id = u.id
                """, [waits.map(\.id), waits.map(\.until.timeIntervalSince1970), waits.map(\.reserved), waits.map(\.limitKey)])
            try connection.notify(outboxChannel, payload: "")
        }
        guard !admitted.isEmpty else { return ([], waits.count, suspects) }
        let claimed = try connection.query("""
            UPDATE jobs j SET state = 'running', attempts = j.attempts + 1, finished_at = NULL,
                -- A limited job starts at the instant its limit admitted it.
                started_at = CASE WHEN u.limit_key IS NULL THEN now() ELSE to_timestamp($4) END,
                worker_id = $2, limit_key = coalesce(u.limit_key, j.limit_key), limit_reserved = false, publish_pending = false
            FROM unnest($1::uuid[], $3::text[]) AS u(id, limit_key)
            WHERE j.id = u.id
            RETURNING \(claimedColumns)
            """, [admitted.map(\.id), workerID, admitted.map(\.limitKey), now.timeIntervalSince1970]).compactMap(claimedJob)
        return (claimed, waits.count, suspects)
    }

    private struct ClaimCandidate {
        var id: UUID
        var priority: Int
        var created: Double
        var limitKey: String?
        var cost: Double
        var reserved: Bool
        var paused: Bool
        var crashes: Int

        init?(_ row: PostgresRow) {
            guard let id = row.uuid("id") else { return nil }
            self.id = id
            priority = row.int("priority") ?? 4
            created = row.double("created") ?? 0
            limitKey = row.string("limit_key").flatMap { $0.isEmpty ? nil : $0 }
            cost = row.double("cost") ?? 1
            reserved = row.bool("limit_reserved") ?? false
            paused = row.bool("paused") ?? false
            crashes = row.int("crashes") ?? 0
        }
    }

    // MARK: after completion

    /// What finished attempts give back to their limits, in the completion's transaction: freed
    /// concurrency slots wake as many waiting jobs, actual costs correct the budgets, and a
    /// "retry at" blocks the limit until then, for at most ``LimitGate/longestBlock`` from now.
    /// `limits`: the limit and estimated cost of each applied outcome's job that ran under one.
    @available(*, noasync)
    static func settleLimits(_ outcomes: [JobOutcome], limits: [UUID: (key: String, cost: Double)],
                             on connection: PostgresConnection) throws {
        var freed: [String: Int] = [:]
        var corrections: [String: Double] = [:]
        var blocks: [String: Date] = [:]
        for outcome in outcomes {
            guard let limit = limits[outcome.id] else { continue }
            freed[limit.key, default: 0] += 1
            if let actual = outcome.actualCost { corrections[limit.key, default: 0] += limit.cost - actual }
            if let runAt = outcome.runAt { blocks[limit.key] = max(blocks[limit.key] ?? runAt, runAt) }
        }
        guard !freed.isEmpty else { return }
        let keys = freed.keys.sorted()
        // Waking skips jobs another claim holds (it is admitting them anyway): no lock waits here.
        let woken = try connection.query("""
            UPDATE jobs w SET run_after = now()
            FROM (SELECT x.id FROM limits l
                  JOIN unnest($1::text[], $2::int4[]) AS f(name, n) ON f.name = l.name
                  CROSS JOIN LATERAL (
                      SELECT j.id FROM jobs j
                      WHERE j.publish_pending AND j.limit_key = l.name AND NOT j.limit_reserved
                        AND j.run_after > now() AND j.run_after < 'infinity'
                        AND j.state IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
                      ORDER BY j.run_after LIMIT f.n FOR UPDATE SKIP LOCKED) x
                  WHERE l.concurrency IS NOT NULL) s
            WHERE w.id = s.id
            RETURNING w.id
            """, [keys, keys.map { Int32(freed[$0] ?? 0) }])
        if woken.count > 0 { try connection.notify(outboxChannel, payload: "") }
        let changed = Set(corrections.keys).union(blocks.keys).sorted()
        guard !changed.isEmpty else { return }
        // Typed apart: inside one heterogeneous array literal the type checker took minutes.
        let deltas: [Double] = changed.map { corrections[$0] ?? 0 }
        let instants: [Double?] = changed.map { blocks[$0]?.timeIntervalSince1970 }
        try connection.query("""
            UPDATE limits l SET
                budget_left = CASE WHEN l.budget IS NULL THEN l.budget_left ELSE least(l.budget, l.budget_left + u.delta) END,
                blocked_until = CASE WHEN u.block IS NULL THEN l.blocked_until
                                     ELSE greatest(coalesce(l.blocked_until, to_timestamp(u.block)), to_timestamp(u.block)) END,
                tokens = CASE WHEN u.block IS NULL OR l.rate IS NULL THEN l.tokens ELSE least(l.tokens, 0) END,
                -- The starts bucket is empty at the block's end, like the schedule (LimitGate.block).
                paced_until = CASE WHEN u.block IS NULL OR l.rate IS NULL THEN l.paced_until
                                   ELSE greatest(coalesce(l.paced_until, to_timestamp(u.block)),
                                                 to_timestamp(u.block + l.burst / l.rate)) END,
                refilled_at = CASE WHEN u.block IS NULL THEN l.refilled_at ELSE greatest(l.refilled_at, to_timestamp(u.block)) END
            FROM (SELECT x.name, x.delta,
                         -- LEAST skips NULLs: without the CASE, a cost correction alone (no block)
                         -- would block the limit for its whole cap.
                         CASE WHEN x.block IS NULL THEN NULL
                              ELSE least(x.block, extract(epoch FROM now())
                                                  + coalesce((SELECT c.max_block_s FROM limits c WHERE c.name = x.name), $4::float8))
                         END AS block
                  FROM unnest($1::text[], $2::float8[], $3::float8[]) AS x(name, delta, block)) AS u
            WHERE l.name = u.name
            """, [changed, deltas, instants, LimitGate.longestBlock])
    }
}
