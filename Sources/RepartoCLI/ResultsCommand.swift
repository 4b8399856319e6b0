import ArgumentParser
import Foundation
import Jobs
import RepartoKinds
import TableRead
import TerminalText

/// `reparto results ID [--json]`: a table read's files, durations, characters, scenes, failures.
struct ResultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "results", abstract: "Show a production's results: a table read's files, durations, characters, scenes and failures, an analysis, or a book import's report.")

    @OptionGroup var cluster: ClusterOptions

    @Argument(help: "Production id (as printed by submit).") var id: String
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let logger = cluster.makeLogger("reparto.results")
        guard let production = UUID(uuidString: id) else { throw CLIError("'\(id)' is not a production id") }
        let assets = Kinds.assetsRoot(try cluster.configuration)
        let results = try await cluster.withPostgres(logger: logger) { try await ProductionResults.load(production, postgres: $0, assetsRoot: assets) }
        switch results {
        case .analysis(let analysis): print(json ? try JSONText.pretty(analysis) : AnalysisText.results(analysis), terminator: "")
        case .bookImport(let books): print(json ? try JSONText.pretty(books) : BookImportText.report(books), terminator: json ? "\n" : "")
        case .tableRead(let tableRead): print(json ? try JSONText.pretty(tableRead) + "\n" : TableReadReport(assetsRoot: assets).full(tableRead), terminator: "")
        case nil: throw CLIError("no table read with id \(id), and no book import")
        }
    }
}
