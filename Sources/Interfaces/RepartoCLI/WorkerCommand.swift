import ArgumentParser
import RepartoRuntime
import Operations
import RepartoConfiguration
import Composition

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
        // Bounded so the seconds convert exactly into the durations and milliseconds they become.
        guard heartbeat > 0 && heartbeat <= 3600 else { throw ValidationError("--heartbeat must be more than 0 and at most 3600 seconds") }
        guard drainTimeout >= 0 && drainTimeout <= 86_400 else {
            throw ValidationError("--drain-timeout must be between 0 and 86400 seconds")
        }
        guard queues.map({ $0.contains { $0 != "," && $0 != " " } }) ?? true else {
            throw ValidationError("--queues names no queue (leave it out to consume every queue)")
        }
    }

    func run() async throws {
        let configuration = try cluster.configuration
        let queueList = queues.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } } ?? []
        let settings = WorkerSettings(queues: queueList, concurrency: concurrency, prefetch: prefetch, heartbeatInterval: heartbeat,
                                      drainTimeout: drainTimeout, runsRelay: !noRelay, namespace: try cluster.resolvedNamespace)
        try await ClusterProcess.runWorker(configuration: configuration, settings: settings, metrics: try metrics.endpoint(configuration),
                                           logger: cluster.makeLogger("reparto.worker"))
    }
}

/// `reparto coordinator`: fan-in, production completion, rescue, outbox relay.
struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coordinator",
                                                    abstract: "Track productions, trigger stages, rescue orphaned jobs.")

    @OptionGroup var cluster: ClusterOptions

    @OptionGroup var metrics: MetricsOptions

    func run() async throws {
        let configuration = try cluster.configuration
        try await ClusterProcess.runCoordinator(configuration: configuration, metrics: try metrics.endpoint(configuration),
                                                logger: cluster.makeLogger("reparto.coordinator"))
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

    /// The server these flags and `REPARTO_METRICS_PORT` ask for.
    func endpoint(_ configuration: ConfigurationValues) throws -> ClusterProcess.MetricsEndpoint {
        .init(host: metricsHost, port: try MetricsServerSetting.port(flag: metricsPort, variable: configuration[OperationsEndpoints.metricsPortVariable]))
    }
}
