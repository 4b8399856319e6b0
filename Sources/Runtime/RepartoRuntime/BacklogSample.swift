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
        try JobStore.backlog(on: connection)
    }
}
