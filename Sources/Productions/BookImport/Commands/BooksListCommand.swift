import ProductionKit
import ArgumentParser
import Foundation
import TerminalText

/// `reparto books list [--search TEXT] [--json]`.
struct BooksListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the catalog's books, by title.")

    @OptionGroup var cluster: ClusterOptions
    @Option(help: "Only books whose title or author holds this text, or with this ISBN-13.") var search: String?
    @Option(help: "At most this many books.") var limit: Int = 1000
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let assets = ClusterSettings.assetsRoot(try cluster.configuration)
        let books = try await cluster.withPostgres(logger: cluster.makeLogger("reparto.books")) { postgres in
            try await BookImportClient(postgres: postgres, assetsRoot: assets).books(search: search, limit: limit)
        }
        print(json ? try JSONText.pretty(books) : BookImportText.list(books), terminator: json ? "\n" : "")
    }
}
