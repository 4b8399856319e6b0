import SpeechJobs
import ProductionKit
import ArgumentParser
import Foundation
import RepartoRuntime
import TerminalText

/// `reparto submit FILE`: creates a table-read production and prints its id.
struct SubmitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit", abstract: "Submit a screenplay for a table read; prints the production id.",
        discussion: "Example: reparto submit pilot.fountain --cast cast.yaml --priority high --wait")

    @OptionGroup var cluster: ClusterOptions
    @OptionGroup var tableRead: TableReadOptions

    @Argument(help: "The script: Fountain, Final Draft (.fdx) or Markdown.") var file: String
    @Flag(help: "Follow the production until it finishes, then print where the results are.") var wait = false
    @Option(help: "With --wait: give up after this many seconds.") var timeout: Double = 24 * 3600

    func run() async throws {
        let logger = cluster.makeLogger("reparto.submit")
        let options = try tableRead.submissionOptions(configuration: cluster.configuration)
        let assets = ClusterSettings.assetsRoot(try cluster.configuration)
        let final = try await cluster.withPostgres(logger: logger) { postgres -> TableReadResults? in
            let tableReads = TableReadClient(postgres: postgres, assetsRoot: assets)
            let id = try await tableReads.submit(file: URL(fileURLWithPath: file), options: options)
            print(id.uuidString.lowercased())
            guard wait else { return nil }
            let view = StageProgressView(stageOrder: TableReadRequest.Stage.allCases.map(\.rawValue))
            return try await tableReads.awaitResults(id, timeout: timeout, logger: logger) { view.show($0) }
        }
        if let final {
            print(TableReadText(assetsRoot: assets).summary(final), terminator: "")
            if final.state != "completed" { throw ExitCode(1) }
        }
    }
}
