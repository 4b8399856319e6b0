import AMQP
import ArgumentParser
import Jobs
import Logging
import Operations
import Postgres
import RepartoConfiguration
import RepartoKinds
import ServiceLifecycle
import TableRead
import Threading

/// `reparto worker`: consumes and runs jobs until SIGTERM/SIGINT, then drains.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "worker", abstract: "Run jobs from the queues.")

    @OptionGroup var cluster: ClusterOptions

    @Option(help: "Comma-separated queues to consume (default: every queue of the registered kinds).") var queues: String?
    @Option(help: "Handlers running at once.") var concurrency: Int = 16
    @Option(help: "Deliveries the broker may send ahead of the handlers.") var prefetch: Int = 256
    @Option(help: "Seconds between heartbeats.") var heartbeat: Double = 2
    @Option(help: "Seconds in-flight jobs get to finish on shutdown before they are handed back.") var drainTimeout: Double = 30
    @Flag(help: "Do not run an outbox relay in this worker.") var noRelay = false
    @OptionGroup var metrics: MetricsOptions

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard prefetch >= 1 && prefetch <= 65535 else { throw ValidationError("--prefetch must be between 1 and 65535") }
        guard heartbeat > 0 else { throw ValidationError("--heartbeat must be positive") }
        guard drainTimeout >= 0 else { throw ValidationError("--drain-timeout must not be negative") }
    }

    func run() async throws {
        let logger = cluster.makeLogger("reparto.worker")
        let configuration = try cluster.configuration
        try Kinds.checkProviderSecrets(configuration)
        let metricsPort = try metrics.resolvedPort(configuration)
        if metricsPort != nil { RepartoMetrics.bootstrap() }
        let amqp = try cluster.amqpConfiguration()
        let postgres = PostgresClient(configuration: try cluster.postgresConfiguration(), maxConnections: 4, logger: logger)
        let wait = try cluster.serverWait(longRunning: true)
        let registry = Kinds.registry(configuration: configuration, postgres: postgres)
        let queueList = queues.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } } ?? registry.queues
        let worker = Worker(amqp: amqp, postgres: postgres, registry: registry,
                            settings: WorkerSettings(queues: queueList, concurrency: concurrency, prefetch: prefetch,
                                                     heartbeatInterval: heartbeat, drainTimeout: drainTimeout,
                                                     runsRelay: !noRelay, namespace: try cluster.resolvedNamespace),
                            logger: logger)
        // Services shut down in reverse order: the worker drains first, the metrics server goes last.
        var services = metrics.services(port: metricsPort, health: worker.health, logger: logger)
        let gate = StartupGate(worker) {
            try await wait.broker(amqp, logger: logger)
            guard try await wait.database(postgres, logger: logger) else { throw CLIError.noSchema(postgres) }
        }
        services.append(.init(service: gate, successTerminationBehavior: .gracefullyShutdownGroup))
        let group = ServiceGroup(configuration: .init(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await withCleanup { try await group.run() } cleanup: { await postgres.shutdown() }
    }
}

/// `reparto coordinator`: fan-in, production completion, rescue, outbox relay.
struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coordinator",
                                                    abstract: "Track productions, trigger stages, rescue orphaned jobs.")

    @OptionGroup var cluster: ClusterOptions

    @OptionGroup var metrics: MetricsOptions

    func run() async throws {
        let logger = cluster.makeLogger("reparto.coordinator")
        let metricsPort = try metrics.resolvedPort(try cluster.configuration)
        if metricsPort != nil { RepartoMetrics.bootstrap() }
        let amqp = try cluster.amqpConfiguration()
        let postgres = PostgresClient(configuration: try cluster.postgresConfiguration(), maxConnections: 1, logger: logger)
        let wait = try cluster.serverWait(longRunning: true)
        let settings = CoordinatorSettings(retention: try RetentionPolicy(configuration: try cluster.configuration))
        let sweep: ScheduleCadence?
        do { sweep = try AssetSweepJob.cadence(every: try cluster.configuration[AssetSweepJob.everyVariable]) } catch let error as ScheduleError {
            throw CLIError("bad \(AssetSweepJob.everyVariable): \(error.description)")
        }
        let coordinator = Coordinator(postgres: try cluster.postgresConfiguration(applicationName: "reparto-coordinator"),
                                      amqp: amqp, namespace: try cluster.resolvedNamespace, plans: Kinds.plans(),
                                      settings: settings, logger: logger)
        var services = metrics.services(port: metricsPort, health: coordinator.health, logger: logger)
        if metricsPort != nil {
            // The pool stays open for the sampler of queue lag and outbox backlog.
            services.append(.init(service: BacklogSampler(postgres: postgres, logger: logger)))
        }
        services.append(.init(service: StartupGate(coordinator) {
            try await wait.broker(amqp, logger: logger)
            guard try await wait.database(postgres, logger: logger) else { throw CLIError.noSchema(postgres) }
            try await AssetSweepJob.keepScheduled(sweep, client: JobClient(postgres: postgres))
        }))
        let group = ServiceGroup(configuration: .init(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await withCleanup { try await group.run() } cleanup: { await postgres.shutdown() }
    }
}

/// `--metrics-port` and `--metrics-host` of `worker` and `coordinator`: the `/metrics`, `/healthz`
/// and `/readyz` server (none unless a port is given here or in `REPARTO_METRICS_PORT`).
struct MetricsOptions: ParsableArguments {
    @Option(help: "Serve /metrics, /healthz and /readyz on this port (default: $REPARTO_METRICS_PORT; none when unset; 0 picks a free port).")
    var metricsPort: Int?

    @Option(help: "Address the metrics server binds.") var metricsHost: String = "0.0.0.0"

    func validate() throws {
        if let metricsPort, !(0...65535).contains(metricsPort) { throw ValidationError("--metrics-port must be between 0 and 65535") }
    }

    func resolvedPort(_ configuration: ConfigurationValues) throws -> Int? {
        try MetricsServerSetting.port(flag: metricsPort, variable: configuration[OperationsEndpoints.metricsPortVariable])
    }

    func services(port: Int?, health: ConnectionHealth, logger: Logger) -> [ServiceGroupConfiguration.ServiceConfiguration] {
        MetricsServerSetting.services(host: metricsHost, port: port, health: health, logger: logger)
    }
}
