import ArgumentParser
import Operations

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
        try await DashboardServer.serve(database: try cluster.dashboardPostgresConfiguration(), host: host, port: port, logger: logger)
    }
}
