import ProductionKit
import ArgumentParser
import Foundation
import TerminalText

/// `reparto books export --json|--csv`: the whole enriched catalog on standard output.
struct BooksExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Print the whole catalog as JSON or CSV.")

    @OptionGroup var cluster: ClusterOptions
    @Flag(help: "Print JSON (an array of books).") var json = false
    @Flag(help: "Print CSV (one row per book, RFC 4180).") var csv = false

    func validate() throws {
        guard json != csv else { throw ValidationError("give one of --json or --csv") }
    }

    func run() async throws {
        let assets = ClusterSettings.assetsRoot(try cluster.configuration)
        let books = try await cluster.withPostgres(logger: cluster.makeLogger("reparto.books")) { postgres in
            try await BookImportClient(postgres: postgres, assetsRoot: assets).books(limit: Int.max)
        }
        print(json ? try JSONText.pretty(books) : BookImportText.csv(books), terminator: json ? "\n" : "")
    }
}
