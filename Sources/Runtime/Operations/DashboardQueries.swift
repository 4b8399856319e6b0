import Foundation
import RepartoRuntime
import Postgres

/// The dashboard's SQL. It reads only the `ops.*` views (and `now()`), so it works as the
/// read-only `reparto_dashboard` role, which may read those views and nothing else.
public enum DashboardQueries {
    /// Rows per list (productions, workers, failures).
    public static let defaultLimit = 50

    /// The parts of a snapshot an endpoint reads; the page's `/api/overview` reads them all.
    public enum Part: Sendable, CaseIterable {
        case queues, productions, workers, failures, throughput, controls, views
    }

    /// Where a list starts and how long it is: `limit` rows (1…``maximumLimit``) after skipping `offset`.
    public struct Page: Sendable, Equatable {
        public var limit: Int
        public var offset: Int
        public init(limit: Int = DashboardQueries.defaultLimit, offset: Int = 0) {
            (self.limit, self.offset) = (min(max(limit, 1), DashboardQueries.maximumLimit), min(max(offset, 0), DashboardQueries.maximumOffset))
        }
    }

    /// The most rows one list request returns.
    public static let maximumLimit = 500
    /// The furthest a list may skip (deeper pages cost a scan; filter instead).
    public static let maximumOffset = 100_000

    /// Reads a ``DashboardSnapshot`` in one read-only, repeatable-read transaction, so every part
    /// of the page describes the same instant. Only `parts` are read; the others stay empty, so
    /// each endpoint costs what it shows.
    /// - Parameter views: the production types' own views, shown as generic tables.
    @available(*, noasync)
    public static func snapshot(limit: Int = defaultLimit, views: [OpsView] = [], on connection: PostgresConnection) throws -> DashboardSnapshot {
        try snapshot(parts: Set(Part.allCases), page: Page(limit: limit), views: views, on: connection)
    }

    /// The `parts` of a snapshot, lists paged by `page`.
    @available(*, noasync)
    public static func snapshot(parts: Set<Part>, page: Page = Page(), views: [OpsView] = [],
                                on connection: PostgresConnection) throws -> DashboardSnapshot {
        try connection.transaction { connection in
            try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            let now = try connection.query("SELECT now() AS now").first?.date("now") ?? Date()
            var snapshot = DashboardSnapshot(generatedAt: now, queues: [], totals: DashboardSnapshot.QueueTotals(), productions: [],
                                             workers: [], workerCounts: DashboardSnapshot.WorkerCounts(), failures: [], throughput: [],
                                             limits: [], pauses: [], usage: [])
            if parts.contains(.queues) {
                snapshot.queues = try queueRows(on: connection)
                for row in snapshot.queues {
                    snapshot.totals.queued += row.queued
                    snapshot.totals.running += row.running
                    snapshot.totals.succeeded += row.succeeded
                    snapshot.totals.failed += row.failed
                    snapshot.totals.dead += row.dead
                    snapshot.totals.cancelled += row.cancelled
                }
            }
            if parts.contains(.productions) { snapshot.productions = try productionRows(page: page, on: connection) }
            if parts.contains(.workers) {
                snapshot.workers = try workerRows(page: page, on: connection)
                snapshot.workerCounts = try workerCounts(on: connection)
            }
            if parts.contains(.failures) { snapshot.failures = try failureRows(page: page, on: connection) }
            if parts.contains(.throughput) { snapshot.throughput = try throughput(on: connection) }
            if parts.contains(.controls) {
                snapshot.limits = try limitRows(on: connection)
                snapshot.pauses = try pauseRows(on: connection)
                snapshot.usage = try usageRows(on: connection)
            }
            if parts.contains(.views) { snapshot.productionViews = try views.map { try table(of: $0, limit: page.limit, on: connection) } }
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
    static func productionRows(page: Page, on connection: PostgresConnection) throws -> [ProductionProgress] {
        try connection.query("""
            SELECT id, name, plan, stage, state, total, queued, running, succeeded, failed, cancelled, done,
                   percent::float8 AS percent, started_at, finished_at, eta
            FROM ops.production_progress
            ORDER BY (state = 'running') DESC, started_at DESC, id
            LIMIT $1 OFFSET $2
            """, [page.limit, page.offset]).compactMap(ProductionProgress.init(row:))
    }

    @available(*, noasync)
    static func workerRows(page: Page, on connection: PostgresConnection) throws -> [DashboardSnapshot.WorkerRow] {
        try connection.query("""
            SELECT id, host, pid, array_to_string(queues, ',') AS queues, concurrency, status, started_at,
                   heartbeat_at, jobs_succeeded, jobs_failed, in_flight
            FROM ops.workers
            ORDER BY CASE status WHEN 'alive' THEN 0 WHEN 'stale' THEN 1 ELSE 2 END, heartbeat_at DESC, id
            LIMIT $1 OFFSET $2
            """, [page.limit, page.offset]).map { row in
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
    static func failureRows(page: Page, on connection: PostgresConnection) throws -> [DashboardSnapshot.FailureRow] {
        try connection.query("""
            SELECT id, kind, production_id, state, attempts, max_attempts, last_error, finished_at, worker_id
            FROM ops.recent_failures
            ORDER BY finished_at DESC, id
            LIMIT $1 OFFSET $2
            """, [page.limit, page.offset]).compactMap { row in
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
