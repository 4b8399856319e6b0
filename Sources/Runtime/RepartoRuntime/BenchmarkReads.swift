import Foundation
import Postgres

/// What the benchmarks (the `RepartoBench` target) read about the jobs of a finished production,
/// so that the `jobs` and `workers` tables are named in SQL by this module only.
///
/// Times are PostgreSQL's own (`created_at`, `finished_at`), so a benchmark measures what the
/// database recorded, not when the client happened to look.
public enum BenchmarkReads {
    /// Counts and wall time of a production's jobs.
    public struct Summary: Sendable, Hashable {
        /// Jobs of the production.
        public var jobs: Int
        /// Jobs whose state is anything but `succeeded`.
        public var notSucceeded: Int
        /// `max(finished_at) − min(created_at)` in seconds (0 when no job finished).
        public var seconds: Double
    }

    /// One job's id and its result as JSON text (nil when it has none).
    public struct JobResult: Sendable, Hashable {
        /// The job's id.
        public var id: UUID
        /// The job's `result` column as JSON text.
        public var result: String?
    }

    /// Counts and wall time of the jobs of `production`.
    public static func summary(production: UUID, on postgres: PostgresClient) async throws -> Summary {
        let row = try await postgres.query("""
            SELECT count(*) AS n, count(*) FILTER (WHERE state <> 'succeeded') AS failed,
                   extract(epoch FROM max(finished_at) - min(created_at))::float8 AS seconds
            FROM all_jobs WHERE production_id = $1 AND \(JobLifecycle.sqlAnyState())
            """, [production]).first
        return Summary(jobs: row?.int("n") ?? 0, notSucceeded: row?.int("failed") ?? 0, seconds: row?.double("seconds") ?? 0)
    }

    /// Whether `production` still has a job to run (queued, running, or failed and waiting for
    /// its retry). One probe of the active jobs' index: a benchmark waiting for its jobs must not
    /// load the database it measures. Counting the whole production at each look took 50–70 ms
    /// at 30,000 jobs, about a third of a core while the jobs ran.
    public static func hasActiveJobs(production: UUID, on postgres: PostgresClient) async throws -> Bool {
        try await postgres.query("""
            SELECT EXISTS (SELECT 1 FROM jobs WHERE production_id = $1 AND state IN \(JobLifecycle.sqlList(JobLifecycle.active))) AS active
            """, [production]).first?.bool("active") ?? true
    }

    /// Submit-to-finish latency of every finished job of `production`, in microseconds.
    public static func latencyMicroseconds(production: UUID, on postgres: PostgresClient) async throws -> [Int64] {
        try await postgres.query("""
            SELECT (extract(epoch FROM finished_at - created_at) * 1000000)::bigint AS us
            FROM all_jobs WHERE production_id = $1 AND \(JobLifecycle.sqlAnyState()) AND finished_at IS NOT NULL
            """, [production]).map { $0.int64("us") ?? 0 }
    }

    /// Process ids of the workers that ran a job of `production`.
    public static func workerPIDs(production: UUID, on postgres: PostgresClient) async throws -> Set<Int32> {
        Set(try await postgres.query("""
            SELECT DISTINCT w.pid FROM all_jobs j JOIN workers w ON w.id = j.worker_id WHERE j.production_id = $1 AND \(JobLifecycle.sqlAnyState("j.state"))
            """, [production]).compactMap { $0.int32("pid") })
    }

    /// Every job of `production` with its result.
    public static func results(production: UUID, on postgres: PostgresClient) async throws -> [JobResult] {
        try await postgres.query("SELECT id, result::text AS result FROM all_jobs WHERE production_id = $1 AND \(JobLifecycle.sqlAnyState())", [production])
            .compactMap { row in row.uuid("id").map { JobResult(id: $0, result: row.string("result")) } }
    }

    /// Process ids of the workers alive now (heartbeating, not stopped) on this host.
    public static func liveWorkerPIDs(host: String, on postgres: PostgresClient) async throws -> [Int32] {
        try await postgres.query("""
            SELECT pid FROM workers w WHERE reparto_worker_alive(w) AND host = $1 ORDER BY started_at
            """, [host]).compactMap { $0.int32("pid") }
    }

    /// When each job of `production` (of `kind`, when given) started (for a limited job: the
    /// instant its limit admitted it), as seconds since 1970, in order; and the deferrals and
    /// attempts beyond the first in all.
    public static func starts(production: UUID, kind: String? = nil, on postgres: PostgresClient) async throws
        -> (seconds: [Double], deferrals: Int, extraAttempts: Int) {
        let rows = try await postgres.query("""
            SELECT extract(epoch FROM started_at)::float8 AS s, deferrals, attempts FROM all_jobs
            WHERE production_id = $1 AND \(JobLifecycle.sqlAnyState()) AND started_at IS NOT NULL AND ($2::text IS NULL OR kind = $2) ORDER BY started_at
            """, [production, kind])
        return (rows.compactMap { $0.double("s") }, rows.reduce(0) { $0 + ($1.int("deferrals") ?? 0) },
                rows.reduce(0) { $0 + max(0, ($1.int("attempts") ?? 1) - 1) })
    }

    /// Seconds from a production's creation to its end (0 while it runs).
    public static func productionSeconds(_ production: UUID, on postgres: PostgresClient) async throws -> Double {
        try await postgres.query("""
            SELECT extract(epoch FROM finished_at - created_at)::float8 AS total FROM productions WHERE id = $1
            """, [production]).first?.double("total") ?? 0
    }

    /// Each kind of `production`'s jobs: seconds from the production's creation to its first
    /// job's start and to its last job's finish, in the order they started.
    public static func stageSpans(_ production: UUID, on postgres: PostgresClient) async throws
        -> [(kind: String, start: Double, end: Double)] {
        try await postgres.query("""
            SELECT j.kind, extract(epoch FROM min(j.started_at) - p.created_at)::float8 AS s,
                   extract(epoch FROM max(j.finished_at) - p.created_at)::float8 AS e
            FROM all_jobs j JOIN productions p ON p.id = j.production_id
            WHERE j.production_id = $1 AND \(JobLifecycle.sqlAnyState("j.state")) AND j.started_at IS NOT NULL GROUP BY j.kind, p.created_at ORDER BY s
            """, [production]).compactMap { row in
            guard let kind = row.string("kind"), let start = row.double("s") else { return nil }
            return (kind, start, row.double("e") ?? start)
        }
    }
}
