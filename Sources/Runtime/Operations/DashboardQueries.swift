import Foundation
import RepartoRuntime
import Postgres

/// The dashboard's SQL. It reads only the `ops.*` views (and `now()`), so it works as the
/// read-only `reparto_dashboard` role, which may read those views and nothing else.
public enum DashboardQueries {
    /// Rows per list (productions, workers, failures).
    public static let defaultLimit = 50

    /// Reads a ``DashboardSnapshot`` in one read-only, repeatable-read transaction, so every part
    /// of the page describes the same instant.
    @available(*, noasync)
    /// - Parameter views: the production types' own views, shown as generic tables.
    public static func snapshot(limit: Int = defaultLimit, views: [OpsView] = [], on connection: PostgresConnection) throws -> DashboardSnapshot {
        try connection.transaction { connection in
            try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            let now = try connection.query("SELECT now() AS now").first?.date("now") ?? Date()
            let queues = try queueRows(on: connection)
            var totals = DashboardSnapshot.QueueTotals()
            for row in queues {
                totals.queued += row.queued
                totals.running += row.running
                totals.succeeded += row.succeeded
                totals.failed += row.failed
                totals.dead += row.dead
                totals.cancelled += row.cancelled
            }
            var snapshot = DashboardSnapshot(
                generatedAt: now, queues: queues, totals: totals,
                productions: try productionRows(limit: limit, on: connection),
                workers: try workerRows(limit: limit, on: connection),
                workerCounts: try workerCounts(on: connection),
                failures: try failureRows(limit: limit, on: connection),
                throughput: try throughput(on: connection),
                limits: try limitRows(on: connection),
                pauses: try pauseRows(on: connection),
                usage: try usageRows(on: connection))
            snapshot.productionViews = try views.map { try table(of: $0, limit: limit, on: connection) }
            return snapshot
        }
    }

    @available(*, noasync)
    static func table(of view: OpsView, limit: Int, on connection: PostgresConnection) throws -> DashboardSnapshot.ViewTable {
        // The name and order come from code (OpsView), never from a request.
        let result = try connection.query("SELECT * FROM ops.\(view.name) ORDER BY \(view.order) LIMIT $1", [limit])
        let columns = result.columns
        return DashboardSnapshot.ViewTable(name: view.name, title: view.title, columns: columns,
                                           rows: result.map { row in columns.indices.map { row[$0] } })
    }

    @available(*, noasync)
    static func queueRows(on connection: PostgresConnection) throws -> [DashboardSnapshot.QueueRow] {
        try connection.query("""
            SELECT kind, queued, running, succeeded, failed, dead, cancelled,
                   p50_ms::float8 AS p50_ms, p95_ms::float8 AS p95_ms, oldest_queued_at
            FROM ops.queue_overview ORDER BY kind
            """).map { row in
                DashboardSnapshot.QueueRow(
                    kind: row.string("kind") ?? "", queued: row.int("queued") ?? 0, running: row.int("running") ?? 0,
                    succeeded: row.int("succeeded") ?? 0, failed: row.int("failed") ?? 0, dead: row.int("dead") ?? 0,
                    cancelled: row.int("cancelled") ?? 0, p50Ms: row.double("p50_ms"), p95Ms: row.double("p95_ms"),
                    oldestQueuedAt: row.date("oldest_queued_at"))
            }
    }

    @available(*, noasync)
    static func productionRows(limit: Int, on connection: PostgresConnection) throws -> [ProductionProgress] {
        try connection.query("""
            SELECT id, name, plan, stage, state, total, queued, running, succeeded, failed, cancelled, done,
                   percent::float8 AS percent, started_at, finished_at, eta
            FROM ops.production_progress
            ORDER BY (state = 'running') DESC, started_at DESC
            LIMIT $1
            """, [limit]).compactMap(ProductionProgress.init(row:))
    }

    @available(*, noasync)
    static func workerRows(limit: Int, on connection: PostgresConnection) throws -> [DashboardSnapshot.WorkerRow] {
        try connection.query("""
            SELECT id, host, pid, array_to_string(queues, ',') AS queues, concurrency, status, started_at,
                   heartbeat_at, jobs_succeeded, jobs_failed, in_flight
            FROM ops.workers
            ORDER BY CASE status WHEN 'alive' THEN 0 WHEN 'stale' THEN 1 ELSE 2 END, heartbeat_at DESC
            LIMIT $1
            """, [limit]).map { row in
                DashboardSnapshot.WorkerRow(
                    id: row.string("id") ?? "", host: row.string("host") ?? "", pid: row.int("pid") ?? 0,
                    queues: (row.string("queues") ?? "").split(separator: ",").map(String.init),
                    concurrency: row.int("concurrency") ?? 0, status: row.string("status") ?? "",
                    startedAt: row.date("started_at"), heartbeatAt: row.date("heartbeat_at"),
                    jobsSucceeded: row.int("jobs_succeeded") ?? 0, jobsFailed: row.int("jobs_failed") ?? 0,
                    inFlight: row.int("in_flight") ?? 0)
            }
    }

    @available(*, noasync)
    static func workerCounts(on connection: PostgresConnection) throws -> DashboardSnapshot.WorkerCounts {
        var counts = DashboardSnapshot.WorkerCounts()
        for row in try connection.query("SELECT status, count(*) AS n FROM ops.workers GROUP BY status") {
            let n = row.int("n") ?? 0
            switch row.string("status") {
            case "alive": counts.alive = n
            case "stale": counts.stale = n
            case "stopped": counts.stopped = n
            default: break
            }
        }
        return counts
    }

    @available(*, noasync)
    static func failureRows(limit: Int, on connection: PostgresConnection) throws -> [DashboardSnapshot.FailureRow] {
        try connection.query("""
            SELECT id, kind, production_id, state, attempts, max_attempts, last_error, finished_at, worker_id
            FROM ops.recent_failures
            ORDER BY finished_at DESC
            LIMIT $1
            """, [limit]).compactMap { row in
                guard let id = row.uuid("id") else { return nil }
                return DashboardSnapshot.FailureRow(
                    id: id, kind: row.string("kind") ?? "", productionId: row.uuid("production_id"),
                    state: row.string("state") ?? "", attempts: row.int("attempts") ?? 0,
                    maxAttempts: row.int("max_attempts") ?? 0, lastError: row.string("last_error"),
                    finishedAt: row.date("finished_at"), workerId: row.string("worker_id"))
            }
    }

    @available(*, noasync)
    static func throughput(on connection: PostgresConnection) throws -> [DashboardSnapshot.ThroughputPoint] {
        try connection.query("""
            SELECT minute, sum(succeeded)::bigint AS succeeded, sum(failed)::bigint AS failed
            FROM ops.throughput GROUP BY minute ORDER BY minute
            """).compactMap { row in
                guard let minute = row.date("minute") else { return nil }
                return DashboardSnapshot.ThroughputPoint(minute: minute, succeeded: row.int("succeeded") ?? 0,
                                                         failed: row.int("failed") ?? 0)
            }
    }

    @available(*, noasync)
    static func limitRows(on connection: PostgresConnection) throws -> [DashboardSnapshot.LimitRow] {
        try connection.query("""
            SELECT name, rate, burst, concurrency, budget, budget_window_s, running, waiting, tokens, blocked_until
            FROM ops.limits ORDER BY name
            """).map { row in
                DashboardSnapshot.LimitRow(
                    name: row.string("name") ?? "", ratePerSecond: row.double("rate"), burst: row.double("burst"),
                    concurrency: row.int("concurrency"), budget: row.double("budget"),
                    budgetWindowSeconds: row.double("budget_window_s"), running: row.int("running") ?? 0,
                    waiting: row.int("waiting") ?? 0, tokens: row.double("tokens"), blockedUntil: row.date("blocked_until"))
            }
    }

    @available(*, noasync)
    static func pauseRows(on connection: PostgresConnection) throws -> [DashboardSnapshot.PauseRow] {
        try connection.query("SELECT scope, name, paused_at, parked FROM ops.pauses ORDER BY scope, name").map { row in
            DashboardSnapshot.PauseRow(scope: row.string("scope") ?? "", name: row.string("name") ?? "",
                                       pausedAt: row.date("paused_at"), parked: row.int("parked") ?? 0)
        }
    }

    @available(*, noasync)
    static func usageRows(on connection: PostgresConnection) throws -> [DashboardSnapshot.UsageRow] {
        try connection.query("""
            SELECT provider, model, capability, calls, reused, input_tokens, output_tokens, characters, images,
                   audio_seconds, last_used_at
            FROM ops.generation_usage ORDER BY provider, capability, model
            """).map { row in
                DashboardSnapshot.UsageRow(
                    provider: row.string("provider") ?? "", model: row.string("model") ?? "",
                    capability: row.string("capability") ?? "", calls: row.int("calls") ?? 0, reused: row.int("reused") ?? 0,
                    inputTokens: row.int64("input_tokens") ?? 0, outputTokens: row.int64("output_tokens") ?? 0,
                    characters: row.int64("characters") ?? 0, images: row.int64("images") ?? 0,
                    audioSeconds: row.double("audio_seconds") ?? 0, lastUsedAt: row.date("last_used_at"))
            }
    }

    /// Whether the database answers (the dashboard's readiness).
    @available(*, noasync)
    public static func ping(on connection: PostgresConnection) throws {
        _ = try connection.query("SELECT 1 AS ok")
    }
}
