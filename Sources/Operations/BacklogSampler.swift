import Jobs
import Logging
import Metrics
import Postgres
import ServiceLifecycle
import Synchronization

/// The coordinator's metrics sampler: every few seconds, records queue lag and outbox backlog
/// (``BacklogSample``) as gauges.
///
/// - `reparto_queue_lag_seconds{queue}`: seconds the oldest runnable job of the queue has waited
///   (0 once a queue it reported before is empty);
/// - `reparto_outbox_backlog`: due jobs the relays have not published yet.
///
/// The queries run through `PostgresClient.withConnection`, on the connection's own thread.
public final class BacklogSampler: Service, Sendable {
    private let postgres: PostgresClient
    private let interval: Double
    private let logger: Logger
    private let seen = Mutex<Set<String>>([])

    /// A sampler reading through `postgres` every `interval` seconds.
    public init(postgres: PostgresClient, interval: Double = OperationsEndpoints.backlogSampleInterval, logger: Logger) {
        self.postgres = postgres
        self.interval = interval
        self.logger = logger
    }

    /// Samples until graceful shutdown or cancellation.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.sampleOnce()
                try? await Task.sleep(for: .seconds(self.interval))
            }
        }
    }

    /// Takes one sample and records it; a failure is logged and the gauges keep their values.
    @discardableResult
    public func sampleOnce() async -> BacklogSample? {
        do {
            let sample = try await postgres.withConnection { try BacklogSample.read(on: $0) }
            record(sample)
            return sample
        } catch {
            logger.warning("sampling queue lag and outbox backlog failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    private func record(_ sample: BacklogSample) {
        let queues = seen.withLock { seen -> Set<String> in
            seen.formUnion(sample.queueLagSeconds.keys)
            return seen
        }
        for queue in queues {
            Gauge(label: "reparto_queue_lag_seconds", dimensions: [("queue", queue)])
                .record(sample.queueLagSeconds[queue] ?? 0)
        }
        Gauge(label: "reparto_outbox_backlog").record(sample.outboxBacklog)
    }
}
