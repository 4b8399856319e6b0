import Foundation
import Postgres

// Control: cancel and retry, for JobClient.
extension JobStore {
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
            WHERE production_id = $1 AND state IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
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
            WHERE id = $1 AND state IN \(JobLifecycle.sqlList(JobLifecycle.waiting)) RETURNING id
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
        // Archived jobs come back first; the statements below then see every job as before. The
        // production's lock waits for an archive pass that is moving its jobs right now.
        if let production { try connection.query("SELECT 1 FROM productions WHERE id = $1 FOR UPDATE", [production]) }
        _ = try unarchive(jobs: ids ?? [], production: production, on: connection)
        if let production {
            guard let first = try connection.query("""
                SELECT stage FROM jobs WHERE production_id = $1 AND state IN \(JobLifecycle.sqlList(JobLifecycle.retryable))
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
            WHERE state IN \(JobLifecycle.sqlList(JobLifecycle.retryable))
              AND (id = ANY($1::uuid[]) OR (production_id = $2 AND stage IS NOT DISTINCT FROM $3))
            RETURNING id
            """, [ids ?? [], production, stageFilter])
        try connection.notify(outboxChannel, payload: "")
        if let production { try connection.notify(progressChannel, payload: production.uuidString.lowercased()) }
        return rows.count
    }
}
