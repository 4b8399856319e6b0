import RepartoRuntime
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
/// - `reparto_outbox_backlog`: due jobs the relays have not published yet;
/// - `reparto_limit_running{limit}`, `reparto_limit_waiting{limit}`, `reparto_limit_tokens{limit}`,
///   `reparto_limit_budget_left{limit}`, `reparto_limit_blocked{limit}` (0/1): each limit's use;
/// - `reparto_paused{scope,name}`: 1 while a queue or kind is paused (0 once resumed), and
///   `reparto_paused_jobs{scope,name}`, its parked jobs.
///
/// The queries run through `PostgresClient.withConnection`, on the connection's own thread.
public final class BacklogSampler: Service, Sendable {
    private let postgres: PostgresClient
    private let interval: Double
    private let logger: Logger
    private let seen = Mutex<Set<String>>([])
    private let seenPauses = Mutex<Set<PauseTarget>>([])
    private let seenLimits = Mutex<Set<String>>([])

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
            let client = JobClient(postgres: postgres)
            record(limits: try await client.limits(), pauses: try await client.pauses())
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

    private func record(limits: [LimitUsage], pauses: [PauseRecord]) {
        let names = seenLimits.withLock { seen -> (all: Set<String>, gone: Set<String>) in
            let now = Set(limits.map(\.spec.name))
            let gone = seen.subtracting(now)
            seen = now
            return (now, gone)
        }
        for usage in limits {
            let dimensions = [("limit", usage.spec.name)]
            Gauge(label: "reparto_limit_running", dimensions: dimensions).record(usage.running)
            Gauge(label: "reparto_limit_waiting", dimensions: dimensions).record(usage.waiting)
            Gauge(label: "reparto_limit_blocked", dimensions: dimensions).record(usage.blocked ? 1 : 0)
            if usage.spec.rate != nil { Gauge(label: "reparto_limit_tokens", dimensions: dimensions).record(usage.gate.tokens) }
            if usage.spec.budget != nil {
                Gauge(label: "reparto_limit_budget_left", dimensions: dimensions).record(usage.gate.budgetLeft)
            }
        }
        for name in names.gone {
            // A deleted limit stops reporting use.
            Gauge(label: "reparto_limit_running", dimensions: [("limit", name)]).record(0)
            Gauge(label: "reparto_limit_waiting", dimensions: [("limit", name)]).record(0)
        }
        let targets = seenPauses.withLock { seen -> Set<PauseTarget> in
            seen.formUnion(pauses.map(\.target))
            return seen
        }
        let parked = Dictionary(pauses.map { ($0.target, $0.parked) }, uniquingKeysWith: { first, _ in first })
        for target in targets {
            let dimensions = [("scope", target.scope.rawValue), ("name", target.name)]
            Gauge(label: "reparto_paused", dimensions: dimensions).record(parked[target] == nil ? 0 : 1)
            Gauge(label: "reparto_paused_jobs", dimensions: dimensions).record(parked[target] ?? 0)
        }
    }
}
