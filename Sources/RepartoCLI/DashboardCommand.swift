import ArgumentParser
import Logging
import Operations
import Postgres
import ServiceLifecycle

/// `reparto dashboard`: the web dashboard over the `ops.*` views, with its JSON API.
struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Serve the web dashboard (queues, productions, workers, failures, throughput) and its JSON API.")

    @OptionGroup var cluster: ClusterOptions

    @Option(help: "Port to listen on (0 picks a free one).") var port: Int = OperationsEndpoints.defaultDashboardPort
    @Option(help: "Address to bind.") var host: String = "127.0.0.1"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() async throws {
        let logger = cluster.makeLogger("reparto.dashboard")
        RepartoMetrics.bootstrap()
        var configuration = try cluster.dashboardPostgresConfiguration()
        // /readyz should answer within a probe's timeout even when the server is unreachable.
        configuration.connectTimeout = min(configuration.connectTimeout, 5)
        let postgres = PostgresClient(configuration: configuration, maxConnections: 2, logger: logger)
        let host = self.host
        let database = configuration.database, user = configuration.user
        let server = DashboardServer.buildApplication(
            host: host, port: port, postgres: postgres, logger: logger,
            onListening: { bound in
                logger.info("dashboard listening", metadata: [
                    "url": "http://\(host):\(bound)/", "host": "\(host)", "port": "\(bound)",
                    "database": "\(database)", "user": "\(user)",
                ])
            })
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: server)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            await postgres.shutdown()
            throw error
        }
        await postgres.shutdown()
    }
}
