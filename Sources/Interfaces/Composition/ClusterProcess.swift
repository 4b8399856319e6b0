import AssetSweep
import Foundation
import RepartoRuntime
import Logging
import Operations
import Postgres
import RepartoConfiguration
import ServiceLifecycle
import Threading

/// The long-lived processes of a cluster — `reparto worker` and `reparto coordinator` — as library
/// calls, for the CLI and for services that embed the runtime: the servers `configuration` names
/// (``ClusterSettings``), the kinds and plans of this build (``Kinds``), an optional metrics
/// server, and a start that waits for the broker and a migrated database (``StartupGate``, so
/// readiness answers 503 meanwhile). Each runs until SIGTERM or SIGINT, then shuts down gracefully.
public enum ClusterProcess {
    /// Where `/metrics`, `/healthz` and `/readyz` are served (none when `port` is nil; 0 picks a free port).
    public struct MetricsEndpoint: Sendable {
        public var host: String
        public var port: Int?

        public init(host: String = "0.0.0.0", port: Int?) {
            (self.host, self.port) = (host, port)
        }
    }

    /// Runs this build's kinds from the queues until SIGTERM/SIGINT, then drains (``Worker``).
    /// Empty `settings.queues` means every queue of the registered kinds.
    /// - Throws: a provider secret that breaks the secret rule, before anything starts
    ///   (``Kinds/checkProviderSecrets(_:)``); ``SchemaMissingError`` for a database never migrated.
    public static func runWorker(configuration: ConfigurationValues, settings: WorkerSettings, metrics: MetricsEndpoint,
                                 logger: Logger) async throws {
        try Kinds.checkProviderSecrets(configuration)
        if metrics.port != nil { RepartoMetrics.bootstrap() }
        let amqp = try ClusterSettings.amqp(configuration)
        let postgres = PostgresClient(configuration: try ClusterSettings.postgres(configuration), maxConnections: 4, logger: logger)
        let wait = try ClusterSettings.serverWait(configuration, longRunning: true)
        let registry = Kinds.registry(configuration: configuration, postgres: postgres)
        var settings = settings
        if settings.queues.isEmpty { settings.queues = registry.queues }
        let worker = Worker(amqp: amqp, postgres: postgres, registry: registry, settings: settings, logger: logger)
        // Services shut down in reverse order: the worker drains first, the metrics server goes last.
        var services = MetricsServerSetting.services(host: metrics.host, port: metrics.port, health: worker.health, logger: logger)
        let gate = StartupGate(worker) {
            try await wait.broker(amqp, logger: logger)
            try await wait.migratedDatabase(postgres, logger: logger, runtimeAtLeast: SchemaBehindError.workerRuntimeVersion)
        }
        services.append(.init(service: gate, successTerminationBehavior: .gracefullyShutdownGroup))
        try await run(services, postgres: postgres, logger: logger)
    }

    /// Runs a ``Coordinator`` (fan-in, production completion, rescue, retention, schedules, the
    /// asset sweep's schedule from ``AssetSweepJob/everyVariable``) until SIGTERM/SIGINT. With a
    /// metrics port, queue lag and outbox backlog are sampled too (``BacklogSampler``).
    /// - Throws: ``ClusterProcessError`` for a bad sweep interval; retention settings' errors.
    public static func runCoordinator(configuration: ConfigurationValues, metrics: MetricsEndpoint, logger: Logger) async throws {
        if metrics.port != nil { RepartoMetrics.bootstrap() }
        let amqp = try ClusterSettings.amqp(configuration)
        let postgres = PostgresClient(configuration: try ClusterSettings.postgres(configuration), maxConnections: 1, logger: logger)
        let wait = try ClusterSettings.serverWait(configuration, longRunning: true)
        let settings = CoordinatorSettings(retention: try RetentionPolicy(configuration: configuration),
                                           archiveAfter: try CoordinatorSettings.archiveAfter(configuration: configuration))
        let sweep: ScheduleCadence?
        do { sweep = try AssetSweepJob.cadence(every: configuration[AssetSweepJob.everyVariable]) } catch {
            throw ClusterProcessError.badSetting(variable: AssetSweepJob.everyVariable, reason: error.description)
        }
        let coordinator = Coordinator(postgres: try ClusterSettings.postgres(configuration, applicationName: "reparto-coordinator"),
                                      amqp: amqp, namespace: configuration[ClusterSettings.namespaceVariable] ?? "",
                                      plans: Kinds.plans(), settings: settings, logger: logger)
        var services = MetricsServerSetting.services(host: metrics.host, port: metrics.port, health: coordinator.health, logger: logger)
        if metrics.port != nil {
            // The pool stays open for the sampler of queue lag and outbox backlog.
            services.append(.init(service: BacklogSampler(postgres: postgres, logger: logger)))
        }
        services.append(.init(service: StartupGate(coordinator) {
            try await wait.broker(amqp, logger: logger)
            try await wait.migratedDatabase(postgres, logger: logger, runtimeAtLeast: SchemaBehindError.workerRuntimeVersion)
            try await AssetSweepJob.keepScheduled(sweep, client: JobClient(postgres: postgres))
        }))
        try await run(services, postgres: postgres, logger: logger)
    }

    /// Runs `services` until SIGTERM/SIGINT, then shuts `postgres` down, success or not.
    private static func run(_ services: [ServiceGroupConfiguration.ServiceConfiguration], postgres: PostgresClient,
                            logger: Logger) async throws {
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await withCleanup { try await group.run() } cleanup: { await postgres.shutdown() }
    }
}

/// A setting a cluster process cannot start with.
public enum ClusterProcessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `variable`'s value does not parse.
    case badSetting(variable: String, reason: String)

    public var description: String {
        switch self {
        case .badSetting(let variable, let reason): "bad \(variable): \(reason)"
        }
    }
}
