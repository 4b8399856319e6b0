import Postgres

/// Cluster-wide backlog figures for metrics: how long the oldest runnable job of each queue has
/// waited, and how many due jobs the outbox relays have not published yet.
///
/// Read by the coordinator's metrics sampler every few seconds; both statements are aggregates
/// over the jobs waiting to run (the outbox count uses the partial index `jobs_outbox`).
public struct BacklogSample: Sendable, Equatable {
    /// Seconds since the oldest queued (or retry-due) job of each queue became runnable.
    public var queueLagSeconds: [String: Double]
    /// Due jobs with `publish_pending` (committed, not yet published to RabbitMQ).
    public var outboxBacklog: Int

    /// A sample with these values.
    public init(queueLagSeconds: [String: Double], outboxBacklog: Int) {
        self.queueLagSeconds = queueLagSeconds
        self.outboxBacklog = outboxBacklog
    }

    /// Reads a sample (two aggregate statements in one transaction, so both use the same `now()`).
    @available(*, noasync)
    public static func read(on connection: PostgresConnection) throws -> BacklogSample {
        try connection.transaction { connection in
            var lag: [String: Double] = [:]
            for row in try connection.query("""
                SELECT queue, greatest(0, extract(epoch FROM now() - min(run_after)))::float8 AS lag
                FROM jobs
                WHERE state IN ('queued', 'failed') AND run_after <= now()
                GROUP BY queue
                """) {
                if let queue = row.string("queue"), let seconds = row.double("lag") { lag[queue] = seconds }
            }
            let backlog = try connection.query("""
                SELECT count(*) AS n FROM jobs
                WHERE publish_pending AND run_after <= now() AND state IN ('queued', 'failed')
                """).first?.int("n") ?? 0
            return BacklogSample(queueLagSeconds: lag, outboxBacklog: backlog)
        }
    }
}
