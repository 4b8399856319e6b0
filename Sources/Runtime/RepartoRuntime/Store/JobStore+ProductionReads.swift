import Foundation
import Postgres

// Reads for production types (through ``ProductionJobs``) and for metrics (``BacklogSample``).
extension JobStore {
    /// Which of `ids` have a production row.
    @available(*, noasync)
    static func existingProductions(_ ids: [UUID], on connection: PostgresConnection) throws -> Set<UUID> {
        Set(try connection.query("SELECT id FROM productions WHERE id = ANY($1::uuid[])", [ids]).compactMap { $0.uuid("id") })
    }

    /// The productions still running.
    @available(*, noasync)
    static func runningProductions(on connection: PostgresConnection) throws -> [UUID] {
        try connection.query("SELECT id FROM productions WHERE state = 'running'").compactMap { $0.uuid("id") }
    }

    @available(*, noasync)
    static func production(_ id: UUID, on connection: PostgresConnection) throws -> ProductionRecord? {
        guard let row = try connection.query("""
            SELECT id, name, plan, state, stage, params::text AS params FROM productions WHERE id = $1
            """, [id]).first else { return nil }
        return ProductionRecord(id: id, name: row.string("name") ?? "", plan: row.string("plan") ?? "batch",
                                state: row.string("state") ?? "", stage: row.string("stage") ?? "",
                                parameters: Data((row.string("params") ?? "{}").utf8))
    }

    @available(*, noasync)
    static func latestResult(production: UUID, stage: String, on connection: PostgresConnection) throws -> Data? {
        try connection.query("""
            SELECT result::text AS result FROM all_jobs
            WHERE production_id = $1 AND stage = $2 AND state = 'succeeded'
            ORDER BY finished_at DESC LIMIT 1
            """, [production, stage]).first?.string("result").map { Data($0.utf8) }
    }

    @available(*, noasync)
    static func stageSucceeded(production: UUID, stage: String, on connection: PostgresConnection) throws -> Bool {
        try connection.query("""
            SELECT 1 FROM all_jobs WHERE production_id = $1 AND stage = $2 AND state = 'succeeded' LIMIT 1
            """, [production, stage]).count == 1
    }

    /// A production's (`$1`) jobs by stage: all, succeeded, dead, cancelled.
    static let stageCountsStatement = """
        SELECT stage, count(*) AS total, count(*) FILTER (WHERE state = 'succeeded') AS ok,
               count(*) FILTER (WHERE state = 'dead') AS dead, count(*) FILTER (WHERE state = 'cancelled') AS cancelled
        FROM all_jobs WHERE production_id = $1 AND \(JobLifecycle.sqlAnyState()) GROUP BY stage
        """

    @available(*, noasync)
    static func stageCounts(production: UUID, on connection: PostgresConnection) throws -> [StageCount] {
        try connection.query(stageCountsStatement, [production]).map { r in
            StageCount(stage: r.string("stage"), total: r.int("total") ?? 0, succeeded: r.int("ok") ?? 0,
                       dead: r.int("dead") ?? 0, cancelled: r.int("cancelled") ?? 0)
        }
    }

    /// A production's (`$1`) unsuccessful jobs, oldest first, at most `$2`.
    static let failuresStatement = """
        SELECT id, kind, stage, state, last_error FROM all_jobs
        WHERE production_id = $1 AND \(JobLifecycle.sqlStates(JobLifecycle.unsuccessful))
        ORDER BY created_at, id LIMIT $2
        """

    @available(*, noasync)
    static func failures(production: UUID, limit: Int, on connection: PostgresConnection) throws -> [JobFailure] {
        try connection.query(failuresStatement, [production, limit]).compactMap { r in
            guard let id = r.uuid("id"), let state = r.string("state").flatMap(JobState.init(rawValue:)) else { return nil }
            return JobFailure(id: id, kind: r.string("kind") ?? "", stage: r.string("stage"), state: state,
                              lastError: r.string("last_error"))
        }
    }

    @available(*, noasync)
    static func unsuccessfulJobs(production: UUID, kind: String, on connection: PostgresConnection) throws -> [FinishedJob] {
        try jobs(production: production, kind: kind, states: JobLifecycle.retryable, on: connection)
    }

    /// A production's (`$1`) jobs of a kind (`$2`) in `states`.
    static func jobsStatement(states: [JobState]) -> String {
        """
        SELECT id, state, last_error, params::text AS params FROM all_jobs
        WHERE production_id = $1 AND kind = $2 AND \(JobLifecycle.sqlStates(states))
        ORDER BY finished_at NULLS LAST, created_at
        """
    }

    /// The production's jobs of `kind` in `states`, finished ones in the order they finished, then the others by creation.
    @available(*, noasync)
    static func jobs(production: UUID, kind: String, states: [JobState], on connection: PostgresConnection) throws -> [FinishedJob] {
        try connection.query(jobsStatement(states: states), [production, kind]).compactMap { r in
            guard let id = r.uuid("id"), let state = r.string("state").flatMap(JobState.init(rawValue:)) else { return nil }
            return FinishedJob(id: id, state: state, lastError: r.string("last_error"),
                               parameters: Data((r.string("params") ?? "{}").utf8))
        }
    }

    /// The figures of a ``BacklogSample`` (two aggregates in one transaction, so both use the same `now()`).
    @available(*, noasync)
    static func backlog(on connection: PostgresConnection) throws -> BacklogSample {
        try connection.transaction { connection in
            var lag: [String: Double] = [:]
            for row in try connection.query("""
                SELECT queue, greatest(0, extract(epoch FROM now() - min(run_after)))::float8 AS lag
                FROM jobs
                WHERE state IN \(JobLifecycle.sqlList(JobLifecycle.waiting)) AND run_after <= now()
                GROUP BY queue
                """) {
                if let queue = row.string("queue"), let seconds = row.double("lag") { lag[queue] = seconds }
            }
            let backlog = try connection.query("""
                SELECT count(*) AS n FROM jobs
                WHERE publish_pending AND run_after <= now() AND state IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
                """).first?.int("n") ?? 0
            return BacklogSample(queueLagSeconds: lag, outboxBacklog: backlog)
        }
    }
}
