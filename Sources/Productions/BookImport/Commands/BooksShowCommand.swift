import ProductionKit
import ArgumentParser
import Foundation
import TerminalText

/// `reparto books show ISBN|ID [--json]`.
struct BooksShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one book and the imported rows that named it.")

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "The book's id, or its ISBN (10 or 13, hyphens allowed).") var key: String
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let assets = ClusterSettings.assetsRoot(try cluster.configuration)
        let details = try await cluster.withPostgres(logger: cluster.makeLogger("reparto.books")) { postgres in
            do { return try await BookImportClient(postgres: postgres, assetsRoot: assets).book(key) } catch let error as BookImportError {
                throw CLIError(error.description)
            }
        }
        guard let details else { throw CLIError("no book \(key) in the catalog") }
        print(json ? try JSONText.pretty(details) : BookImportText.details(details), terminator: json ? "\n" : "")
    }
}
