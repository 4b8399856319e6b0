import Analysis
import ArgumentParser
import Foundation
import Jobs
import RepartoKinds
import TableRead
import BookImport
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
        let (results, analysis) = try await cluster.withPostgres(logger: logger) { postgres in
            let tableRead = try await TableReadClient(postgres: postgres, assetsRoot: assets).results(production)
            return (tableRead, tableRead == nil ? try await AnalysisClient(postgres: postgres, assetsRoot: assets).results(production) : nil)
        }
        if let analysis {
            print(json ? try JSONText.pretty(analysis) : AnalysisText.results(analysis), terminator: "")
            return
        }
        guard let results else {
            // Not a table read: perhaps a book import.
            let books = try await cluster.withPostgres(logger: logger) { postgres in
                try await BookImportClient(postgres: postgres, assetsRoot: assets).results(production)
            }
            guard let books else { throw CLIError("no table read with id \(id), and no book import") }
            print(json ? try JSONText.pretty(books) : BookImportText.report(books), terminator: json ? "\n" : "")
            return
        }
        if json {
            print(try JSONText.pretty(results))
        } else {
            print(TableReadReport(assetsRoot: assets).full(results), terminator: "")
        }
    }
}
