import AMQP
import Foundation
import Jobs
import Logging
import Postgres
import RepartoConfiguration
import RepartoKinds
import ServiceLifecycle
import Speech

/// A coordinator and workers running in this process, on the cluster's RabbitMQ and PostgreSQL:
/// what `reparto run` and `reparto bench pipeline` stand on. Migrations are applied first.
struct LocalCluster {
    let cluster: ClusterOptions
    let workers: Int
    /// Handlers per worker: 2 lets one line's synthesis overlap another's fsync.
    var concurrency = 2
    let namespace: String
    /// The asset volume the workers use.
    let assetsRoot: URL
    let logger: Logger

    /// Several workers in one process share libespeak-ng's one synthesizer unless they get helper
    /// processes (this executable's `espeak-helper`): one per worker. The provider uses them only
    /// with its library engine; they start on first use.
    static func espeakHelpers(workers: Int) -> EspeakHelperPool? {
        guard workers > 1 else { return nil }
        return EspeakHelperPool(executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
                                arguments: ["espeak-helper"], size: workers)
    }

    /// Runs `body` while the services run, then shuts them down gracefully (also on SIGINT/SIGTERM,
    /// after which `body`'s result is nil).
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T? {
        let configuration = try cluster.configuration
        try Kinds.checkProviderSecrets(configuration)
        let amqp = try cluster.amqpConfiguration()
        try await cluster.serverWait(longRunning: true).broker(amqp, logger: logger)
        let cluster = self.cluster, workers = self.workers, concurrency = self.concurrency
        let namespace = self.namespace, logger = self.logger, assetsRoot = self.assetsRoot
        return try await cluster.withPostgres(maxConnections: 4 + workers, requireSchema: false, longRunning: true, logger: logger) { postgres in
            let migrations = try Migrator.load(directory: Kinds.migrationsDirectory(configuration))
            _ = try await postgres.withConnection { try Migrator.migrate(migrations, on: $0) }
            let registry = Kinds.registry(configuration: configuration, postgres: postgres, assetsRoot: assetsRoot,
                                          espeakHelpers: Self.espeakHelpers(workers: workers))
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
                .init(service: Coordinator(postgres: try cluster.postgresConfiguration(applicationName: "reparto-coordinator"),
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
                    do {
                        let value = try await body(postgres)
                        await group.triggerGracefulShutdown()
                        return value
                    } catch {
                        await group.triggerGracefulShutdown()
                        throw error
                    }
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
}
