import Foundation
import Postgres

// The outbox relay.
extension JobStore {
    /// Up to `limit` due, unpublished jobs, oldest first, with the row version each was read at.
    ///
    /// Nothing is locked: a worker that receives a job before the relay has marked it claims it at
    /// once instead of waiting for the relay's transaction (publish, broker confirms, mark), which
    /// put that wait into every job's latency. Only the leading relay takes what is due now;
    /// standbys take what is overdue by their grace, and a job two relays publish is dropped as a
    /// duplicate at claim time.
    /// - Parameter overdueBy: only entries due for at least this many seconds (a standby relay's
    ///   share: what the leading relay has not published in that time).
    @available(*, noasync)
    static func takeOutbox(limit: Int, overdueBy: Double = 0, on connection: PostgresConnection) throws -> [OutboxEntry] {
        try connection.query("""
            SELECT id, kind, queue, priority, xmin::text AS version FROM jobs
            WHERE publish_pending AND run_after <= now() - make_interval(secs => $2::float8)
              AND state IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
            ORDER BY run_after
            LIMIT $1
            """, [limit, overdueBy]).compactMap { row in
                guard let id = row.uuid("id"), let kind = row.string("kind"), let queue = row.string("queue") else { return nil }
                return OutboxEntry(id: id, kind: kind, queue: queue, priority: row.int("priority") ?? 4,
                                   version: row.string("version") ?? "")
            }
    }

    /// Marks published the entries whose rows have not changed since they were taken. A row that
    /// changed meanwhile was claimed (which clears the flag itself), or put back for a later
    /// publish (a retry, a move to another limit), which this must not undo. Run on a session
    /// prepared by ``prepareRelaySession(_:)``.
    @available(*, noasync)
    static func markPublished(_ entries: [OutboxEntry], on connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE jobs j SET publish_pending = false FROM unnest($1::uuid[], $2::text[]) AS u(id, version)
            WHERE j.id = u.id AND j.xmin = u.version::xid AND j.publish_pending
            """, [entries.map(\.id), entries.map(\.version)])
    }

    /// The relay's session commits without waiting for the WAL flush: losing its mark in a crash
    /// only republishes (consumers drop duplicates at claim time), and its other writes (clearing
    /// stale flags) are redone on its next pass. One statement a mark instead of four.
    @available(*, noasync)
    static func prepareRelaySession(_ connection: PostgresConnection) throws {
        try connection.execute("SET synchronous_commit TO off")
    }

    /// Seconds until the next scheduled publish (retries, delayed jobs), if any. Jobs held
    /// without a time (`run_after = 'infinity'`: paused, or waiting for a limit slot) are not due
    /// until something releases them, and PostgreSQL cannot subtract an infinite timestamp.
    @available(*, noasync)
    static func secondsUntilNextDue(on connection: PostgresConnection) throws -> Double? {
        try connection.query("""
            SELECT extract(epoch FROM min(run_after) - now())::float8 AS s FROM jobs
            WHERE publish_pending AND run_after < 'infinity' AND state IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
            """).first?.double("s")
    }

    /// Rows with publish_pending that are no longer runnable are cleared (cancelled meanwhile).
    @available(*, noasync)
    static func clearStaleOutbox(on connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE jobs SET publish_pending = false
            WHERE publish_pending AND state NOT IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
            """)
    }
}
