import ArgumentParser
import Foundation
import RepartoRuntime
import Composition
import TerminalText

/// `reparto status [--json]`: the operations views as tables or JSON.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show queues, productions, workers and failures.",
        discussion: "Reads the ops.* views from REPARTO_DASHBOARD_DATABASE_URL when it is set (a streaming replica, which may trail the primary), else from the cluster's database.")

    @OptionGroup var cluster: ClusterOptions

    @Flag(help: "Print JSON instead of tables.") var json = false
    @Option(help: "Rows per view.") var limit: Int = 20

    func run() async throws {
        // Only reads: from REPARTO_DASHBOARD_DATABASE_URL when set (a streaming replica), else the cluster's database.
        let database = try cluster.dashboardPostgresConfiguration(applicationName: "reparto-status")
        let views = try await cluster.withPostgres(database: database, logger: cluster.makeLogger("reparto.status")) {
            try await OpsView.snapshot(Kinds.opsViews, limit: limit, on: $0)
        }
        print(json ? StatusRendering.json(views) : StatusRendering.text(views), terminator: json ? "\n" : "")
    }
}
