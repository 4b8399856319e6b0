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
    @Option(help: "Rows per view (1–500).") var limit: Int = 20
    @Option(help: "Rows of each view to skip first: the next page is --offset 20 with --limit 20.") var offset: Int = 0

    func validate() throws {
        guard (1...500).contains(limit) else { throw ValidationError("--limit must be between 1 and 500") }
        guard (0...100_000).contains(offset) else { throw ValidationError("--offset must be between 0 and 100000") }
    }

    func run() async throws {
        // Only reads: from REPARTO_DASHBOARD_DATABASE_URL when set (a streaming replica), else the cluster's database.
        let database = try cluster.dashboardPostgresConfiguration(applicationName: "reparto-status")
        let views = try await cluster.withPostgres(database: database, logger: cluster.makeLogger("reparto.status")) {
            try await OpsView.snapshot(Kinds.opsViews, limit: limit, offset: offset, on: $0)
        }
        print(json ? StatusRendering.json(views) : StatusRendering.text(views), terminator: json ? "\n" : "")
    }
}
