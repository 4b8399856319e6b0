import ArgumentParser
import Jobs
import Logging
import ServiceLifecycle

/// `reparto worker`: consumes and runs jobs until SIGTERM/SIGINT, then drains.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "worker", abstract: "Run jobs from the queues.")

    @OptionGroup var cluster: ClusterOptions

    @Option(help: "Comma-separated queues to consume (default: every queue of the registered kinds).")
    var queues: String?

    @Option(help: "Handlers running at once.")
    var concurrency: Int = 16

    @Option(help: "Deliveries the broker may send ahead of the handlers.")
    var prefetch: Int = 256

    @Option(help: "Seconds between heartbeats.")
    var heartbeat: Double = 2

    @Option(help: "Seconds in-flight jobs get to finish on shutdown before they are handed back.")
    var drainTimeout: Double = 30

    @Flag(help: "Do not run an outbox relay in this worker.")
    var noRelay = false

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard prefetch >= 1 && prefetch <= 65535 else { throw ValidationError("--prefetch must be between 1 and 65535") }
        guard heartbeat > 0 else { throw ValidationError("--heartbeat must be positive") }
        guard drainTimeout >= 0 else { throw ValidationError("--drain-timeout must not be negative") }
    }

    func run() async throws {
        let logger = cluster.makeLogger("reparto.worker")
        let amqp = try cluster.amqpConfiguration()
        try await Preflight.checkBroker(amqp)
        let postgres = try await cluster.connectPostgres(maxConnections: 4, logger: logger)
        let registry = Kinds.registry(environment: cluster.environment, postgres: postgres)
        let queueList = queues.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } } ?? registry.queues
        let worker = Worker(amqp: amqp, postgres: postgres, registry: registry,
                            settings: WorkerSettings(queues: queueList, concurrency: concurrency, prefetch: prefetch,
                                                     heartbeatInterval: heartbeat, drainTimeout: drainTimeout,
                                                     runsRelay: !noRelay, namespace: cluster.resolvedNamespace),
                            logger: logger)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: worker, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        await postgres.shutdown()
    }
}

/// `reparto coordinator`: fan-in, production completion, rescue, outbox relay.
struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coordinator",
                                                    abstract: "Track productions, trigger stages, rescue orphaned jobs.")

    @OptionGroup var cluster: ClusterOptions

    func run() async throws {
        let logger = cluster.makeLogger("reparto.coordinator")
        let amqp = try cluster.amqpConfiguration()
        try await Preflight.checkBroker(amqp)
        let postgres = try await cluster.connectPostgres(maxConnections: 1, logger: logger)
        await postgres.shutdown()
        let coordinator = Coordinator(postgres: try cluster.postgresConfiguration(applicationName: "reparto-coordinator"),
                                      amqp: amqp, namespace: cluster.resolvedNamespace, plans: Kinds.plans(), logger: logger)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: coordinator)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
