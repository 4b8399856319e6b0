import AMQP
import Foundation
import RepartoRuntime
import Logging
import Postgres
import RepartoConfiguration
import ServiceLifecycle
import Speech
import Threading

/// A coordinator and workers running in this process, on the cluster's RabbitMQ and PostgreSQL:
/// what `reparto run` and `reparto bench pipeline` stand on. Migrations are applied first.
public struct InProcessCluster: Sendable {
    public let configuration: ConfigurationValues
    public let amqp: AMQPConfiguration
    /// The coordinator's own connection (it holds the leader's advisory lock).
    public let coordinatorPostgres: PostgresConfiguration
    public let workers: Int
    /// Handlers per worker: 2 lets one line's synthesis overlap another's fsync.
    public var concurrency = 2
    public let namespace: String
    /// The asset volume the workers use.
    public let assetsRoot: URL
    public let logger: Logger

    public init(configuration: ConfigurationValues, amqp: AMQPConfiguration, coordinatorPostgres: PostgresConfiguration,
                workers: Int, namespace: String, assetsRoot: URL, logger: Logger) {
        self.configuration = configuration
        self.amqp = amqp
        self.coordinatorPostgres = coordinatorPostgres
        self.workers = workers
        self.namespace = namespace
        self.assetsRoot = assetsRoot
        self.logger = logger
    }

    /// Several workers in one process share each engine's one in-process synthesizer (libespeak-ng,
    /// flite) unless they get helper processes (this executable's `speech-helper`): one per worker.
    /// espeak-ng uses them only with its library engine; they start on first use.
    public static func speechHelpers(workers: Int) -> SpeechHelperPool? {
        guard workers > 1 else { return nil }
        return SpeechHelperPool(executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
                                arguments: ["speech-helper"], size: workers)
    }

    /// Migrates the database of `postgres` (whose pool needs 4 + `workers` connections), then runs
    /// `body` while the services run and shuts them down gracefully (also on SIGINT/SIGTERM, after
    /// which `body`'s result is nil).
    public func run<T: Sendable>(on postgres: PostgresClient, _ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T? {
        let configuration = self.configuration, amqp = self.amqp, workers = self.workers, concurrency = self.concurrency
        let namespace = self.namespace, logger = self.logger, assetsRoot = self.assetsRoot
        let lines = try Kinds.migrationLines(configuration)
        _ = try await postgres.withConnection { try Migrator.migrate(lines, on: $0) }
        let registry = Kinds.registry(configuration: configuration, postgres: postgres, assetsRoot: assetsRoot,
                                      speechHelpers: Self.speechHelpers(workers: workers))
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: Coordinator(postgres: coordinatorPostgres,
                                       amqp: amqp, namespace: namespace, plans: Kinds.plans(), logger: logger)),
        ]
        for _ in 0..<workers {
            services.append(.init(service: Worker(
                amqp: amqp, postgres: postgres, registry: registry,
                settings: WorkerSettings(queues: registry.queues, concurrency: concurrency, prefetch: 32,
                                         namespace: namespace),
                logger: logger)))
        }
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger))
        return try await withThrowingTaskGroup(of: T?.self) { tasks in
            tasks.addTask {
                try await group.run()
                return nil
            }
            tasks.addTask {
                try await withCleanup { try await body(postgres) } cleanup: { await group.triggerGracefulShutdown() }
            }
            // The services stop on SIGINT/SIGTERM or after `body`; either way nothing is left to wait for.
            var result: T?
            for try await value in tasks {
                if let value { result = value } else { tasks.cancelAll() }
            }
            return result
        }
    }
}
