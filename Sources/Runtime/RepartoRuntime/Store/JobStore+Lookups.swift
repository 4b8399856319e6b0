import Foundation
import Postgres

// Reads: a job, a production's progress.
extension JobStore {
    @available(*, noasync)
    static func job(_ id: UUID, on connection: PostgresConnection) throws -> JobRecord? {
        try connection.query("""
            SELECT id, kind, queue, state, attempts, max_attempts, priority, production_id, stage, idempotency_key,
                   created_at, started_at, finished_at, worker_id, result, last_error, params
            FROM all_jobs WHERE id = $1
            """, [id]).first.flatMap(JobRecord.init(row:))
    }

    @available(*, noasync)
    static func productionExists(_ id: UUID, on connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT 1 FROM productions WHERE id = $1", [id]).count == 1
    }

    /// A production's (`$1`) jobs by stage, in the order the stages began.
    static let stageProgressStatement = """
        SELECT coalesce(stage, '') AS stage, count(*) AS total,
               count(*) FILTER (WHERE state = 'queued' OR state = 'failed') AS queued,
               count(*) FILTER (WHERE state = 'running') AS running,
               count(*) FILTER (WHERE state = 'succeeded') AS succeeded,
               count(*) FILTER (WHERE state = 'dead') AS dead,
               count(*) FILTER (WHERE state = 'cancelled') AS cancelled
        FROM all_jobs WHERE production_id = $1 AND \(JobLifecycle.sqlAnyState()) GROUP BY stage ORDER BY min(created_at)
        """

    @available(*, noasync)
    static func progress(_ id: UUID, on connection: PostgresConnection) throws -> ProductionProgress? {
        guard var progress = try connection.query("SELECT * FROM ops.production_progress WHERE id = $1", [id]).first
            .flatMap(ProductionProgress.init(row:)) else { return nil }
        progress.stages = try connection.query(stageProgressStatement, [id]).map { row in
            StageProgress(stage: row.string("stage") ?? "", total: row.int("total") ?? 0, queued: row.int("queued") ?? 0,
                          running: row.int("running") ?? 0, succeeded: row.int("succeeded") ?? 0,
                          failed: row.int("dead") ?? 0, cancelled: row.int("cancelled") ?? 0)
        }
        return progress
    }
}
