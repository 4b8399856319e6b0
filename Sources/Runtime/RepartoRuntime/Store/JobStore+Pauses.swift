import Foundation
import Postgres

// Pause and resume of queues and kinds.
extension JobStore {
    /// Pauses a queue or kind: from the next claim on, its delivered jobs are parked in the
    /// outbox (none starts, none is lost); running jobs finish. False when it was paused already.
    @available(*, noasync)
    static func pause(_ target: PauseTarget, on connection: PostgresConnection) throws -> Bool {
        try connection.query("""
            INSERT INTO pauses (scope, name) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING name
            """, [target.scope.rawValue, target.name]).count > 0
    }

    /// Resumes a queue or kind: its parked jobs are published again. Returns how many were
    /// released, or nil when it was not paused.
    @available(*, noasync)
    static func resume(_ target: PauseTarget, on connection: PostgresConnection) throws -> Int? {
        try connection.transaction { connection in
            guard try connection.query("DELETE FROM pauses WHERE scope = $1 AND name = $2 RETURNING name",
                                       [target.scope.rawValue, target.name]).count > 0 else { return nil }
            let column = target.scope == .kind ? "kind" : "queue"
            // A job parked for another pause still in force is parked again at its next claim.
            let released = try connection.query("""
                UPDATE jobs SET run_after = now()
                WHERE publish_pending AND run_after = 'infinity' AND \(column) = $1
                  AND state IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
                RETURNING id
                """, [target.name]).count
            try connection.notify(outboxChannel, payload: "")
            return released
        }
    }

    /// The paused queues and kinds, with how many jobs each holds parked.
    @available(*, noasync)
    static func pauses(on connection: PostgresConnection) throws -> [PauseRecord] {
        try connection.query("""
            SELECT scope, name, paused_at, parked FROM ops.pauses ORDER BY scope, name
            """).compactMap { row in
                guard let scope = row.string("scope").flatMap(PauseTarget.Scope.init), let name = row.string("name") else { return nil }
                return PauseRecord(target: PauseTarget(scope, name), pausedAt: row.date("paused_at") ?? Date(),
                                   parked: row.int("parked") ?? 0)
            }
    }
}
