import ArgumentParser
import Composition
import Operations

/// `reparto dashboard`: the web dashboard over the `ops.*` views, with its JSON API.
struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Serve the web dashboard (queues, productions, workers, failures, throughput) and its JSON API.")

    @OptionGroup var cluster: ClusterOptions

    @Option(help: "Port to listen on (0 picks a free one).") var port: Int = OperationsEndpoints.defaultDashboardPort
    @Option(help: ArgumentHelp("Address to bind.", discussion: "Any address but loopback needs REPARTO_DASHBOARD_TOKEN (or REPARTO_DASHBOARD_TOKEN_FILE): every request must then send Authorization: Bearer <token>.")) var host: String = "127.0.0.1"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() async throws {
        // Checked before anything connects or binds: one line when the token is missing.
        let token = try DashboardAccess.requiredToken(host: host, token: try cluster.configuration.secret(DashboardAccess.tokenVariable))
        let logger = cluster.makeLogger("reparto.dashboard")
        RepartoMetrics.bootstrap()
        try await DashboardServer.serve(database: try cluster.dashboardPostgresConfiguration(), host: host, port: port, token: token,
                                         views: ProductionTypes.all.flatMap { $0.opsViews }, logger: logger)
    }
}
