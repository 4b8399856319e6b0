import Foundation
import Postgres

// The outbox relay.
extension JobStore {
    /// Takes up to `limit` due jobs for publishing: clears their publish flag in the same
    /// statement, oldest due first (other relays skip rows a take holds). Marked before the
    /// broker has them, so claims never wait for a relay; a job the broker then does not take
    /// is flagged again (``restorePending(_:on:)``), and one a relay crash leaves marked without a
    /// message is found by the relay's comparison with the broker's queues (``republish(queue:count:olderThan:on:)``).
    /// - Parameter overdueBy: only entries due for at least this many seconds (a standby relay's
    ///   share: what the leading relay has not published in that time).
    @available(*, noasync)
    static func takeOutbox(limit: Int, overdueBy: Double = 0, on connection: PostgresConnection) throws -> [OutboxEntry] {
        let rows = try connection.query(prepared: takeStatement, [limit, overdueBy]).compactMap { row -> (OutboxEntry, Double)? in
            guard let id = row.uuid("id"), let kind = row.string("kind"), let queue = row.string("queue") else { return nil }
            return (OutboxEntry(id: id, kind: kind, queue: queue, priority: row.int("priority") ?? 4), row.double("due") ?? 0)
        }
        // RETURNING keeps no order: published oldest due first, as taken.
        return rows.enumerated().sorted { ($0.element.1, $0.offset) < ($1.element.1, $1.offset) }.map(\.element.0)
    }

    /// `$1` the batch size, `$2` the seconds an entry must have been due (a standby's grace).
    /// The taken ids are an array, not a join: a generic plan made while `jobs` was empty and
    /// vacuumed joined them by reading `jobs` whole, taking the batch again for each row.
    static let takeStatement = """
        UPDATE jobs j SET publish_pending = false
        WHERE j.id = ANY(ARRAY(SELECT id FROM jobs
                               WHERE publish_pending AND run_after <= now() - make_interval(secs => $2::float8)
                                 AND state IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
                               ORDER BY run_after
                               LIMIT $1
                               FOR UPDATE SKIP LOCKED))
        RETURNING j.id, j.kind, j.queue, j.priority, extract(epoch FROM j.run_after)::float8 AS due
        """

    /// Flags taken jobs to be published again, and wakes the leading relay: the broker returned
    /// them, or the batch failed before its confirms (a relay's, or a producer's ``JobPublisher``'s).
    /// Only jobs still waiting with the flag cleared: a job claimed meanwhile (its message did
    /// arrive) is left alone.
    @available(*, noasync)
    static func restorePending(_ ids: [UUID], on connection: PostgresConnection) throws {
        guard !ids.isEmpty else { return }
        try connection.query("""
            WITH flagged AS (
                UPDATE jobs SET publish_pending = true
                WHERE id = ANY($1::uuid[]) AND NOT publish_pending AND state IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
                RETURNING id)
            SELECT pg_notify('\(outboxChannel)', '') FROM (SELECT 1 FROM flagged LIMIT 1) AS any_flagged
            """, [ids])
    }

    /// Seconds until the next scheduled publish (retries, delayed jobs), if any. Jobs held
    /// without a time (`run_after = 'infinity'`: paused, or waiting for a limit slot) are not due
    /// until something releases them, and PostgreSQL cannot subtract an infinite timestamp. A
    /// flag left on a job no longer waiting (cancelled meanwhile, until the stale-flag sweep) is
    /// not due either: counting it, the relay woke every millisecond.
    @available(*, noasync)
    static func secondsUntilNextDue(on connection: PostgresConnection) throws -> Double? {
        try connection.query(prepared: nextDueStatement).first?.double("s")
    }

    static let nextDueStatement = """
        SELECT extract(epoch FROM min(run_after) - now())::float8 AS s FROM jobs
        WHERE publish_pending AND run_after < 'infinity' AND state IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
        """

    /// Rows with publish_pending that are no longer runnable are cleared (cancelled meanwhile).
    @available(*, noasync)
    static func clearStaleOutbox(on connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE jobs SET publish_pending = false
            WHERE publish_pending AND state NOT IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
            """)
    }

    /// Marks jobs whose queue the broker refuses dead, with the broker's reason.
    @available(*, noasync)
    static func failUnpublishable(_ ids: [UUID], reason: String, on connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE jobs SET state = 'dead', publish_pending = false, finished_at = now(), last_error = $2
            WHERE id = ANY($1::uuid[]) AND state IN \(JobLifecycle.sqlList(JobLifecycle.waiting))
            """, [ids, reason])
    }

    /// Per queue, the published jobs waiting to be claimed for at least `seconds` (their messages
    /// should be in the broker's queue, or held by a worker).
    @available(*, noasync)
    static func publishedWaitingByQueue(olderThan seconds: Double, on connection: PostgresConnection) throws -> [(String, Int)] {
        try connection.query(prepared: """
            SELECT queue, count(*) AS n FROM jobs
            WHERE state IN \(JobLifecycle.sqlList(JobLifecycle.waiting)) AND NOT publish_pending
              AND run_after <= now() - make_interval(secs => $1::float8)
            GROUP BY queue ORDER BY queue
            """, [seconds]).compactMap { row in
                guard let queue = row.string("queue"), let count = row.int("n") else { return nil }
                return (queue, count)
            }
    }

    /// The deliveries of `routingKey` that live workers hold unclaimed, as their last heartbeats
    /// reported them: not ready in the broker's queue, and not lost.
    @available(*, noasync)
    static func heldDeliveries(routingKey: String, on connection: PostgresConnection) throws -> Int {
        try connection.query(prepared: """
            SELECT coalesce(sum((w.held ->> $1)::bigint), 0)::bigint AS n FROM workers w WHERE reparto_worker_alive(w)
            """, [routingKey]).first?.int("n") ?? 0
    }

    /// Marks the `count` oldest published jobs waiting in `queue` to be published again.
    @available(*, noasync)
    static func republish(queue: String, count: Int, olderThan seconds: Double, on connection: PostgresConnection) throws -> Int {
        try connection.query("""
            UPDATE jobs SET publish_pending = true WHERE id IN (
                SELECT id FROM jobs
                WHERE queue = $1 AND state IN \(JobLifecycle.sqlList(JobLifecycle.waiting)) AND NOT publish_pending
                  AND run_after <= now() - make_interval(secs => $3::float8)
                ORDER BY run_after LIMIT $2
                FOR UPDATE SKIP LOCKED)
            RETURNING id
            """, [queue, count, seconds]).count
    }
}
