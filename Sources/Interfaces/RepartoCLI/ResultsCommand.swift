import ArgumentParser
import Composition
import Foundation
import ProductionKit
import RepartoRuntime

/// `reparto results ID [--json]`: a production's results, whatever its type (a table read's files,
/// an analysis, a book import's report).
struct ResultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "results", abstract: "Show a production's results: a table read's files, durations, characters, scenes and failures, an analysis, or a book import's report.")

    @OptionGroup var cluster: ClusterOptions

    @Argument(help: "Production id (as printed by submit).") var id: String
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let logger = cluster.makeLogger("reparto.results")
        guard let production = UUID(uuidString: id) else { throw CLIError("'\(id)' is not a production id") }
        let configuration = try cluster.configuration
        let assets = ClusterSettings.assetsRoot(configuration)
        let report = try await cluster.withPostgres(logger: logger) { postgres in
            try await Kinds.results(of: production, environment: ProductionEnvironment(assetsRoot: assets, configuration: configuration, postgres: postgres))
        }
        guard let report else {
            let nouns = ProductionTypes.all.map { $0.noun }
            throw CLIError("no production with id \(id) (looked for a \(nouns.dropLast().joined(separator: ", ")) or \(nouns.last ?? ""))")
        }
        print(json ? try report.json() : report.text(assetsRoot: assets), terminator: "")
    }
}
