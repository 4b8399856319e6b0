import ArgumentParser
import Foundation
import Jobs
import Postgres
import TerminalText

/// `reparto status [--json]`: the operations views as tables or JSON.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show queues, productions, workers and failures.")

    @OptionGroup var cluster: ClusterOptions

    @Flag(help: "Print JSON instead of tables.") var json = false
    @Option(help: "Rows per view.") var limit: Int = 20

    func run() async throws {
        let logger = cluster.makeLogger("reparto.status")
        let views: [(OpsView, PostgresResult)] = try await cluster.withPostgres(logger: logger) { postgres in
            var results: [(OpsView, PostgresResult)] = []
            for view in OpsView.allCases { results.append((view, try await view.rows(limit: limit, on: postgres))) }
            return results
        }
        if json {
            print(StatusRendering.json(views))
        } else {
            for (view, rows) in views {
                print("== \(view.rawValue) ==")
                print(StatusRendering.table(rows), terminator: "")
                print()
            }
        }
    }
}
