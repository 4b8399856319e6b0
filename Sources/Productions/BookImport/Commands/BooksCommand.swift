import ProductionKit
import ArgumentParser

/// `reparto books list|show`: the book catalog.
struct BooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "books", abstract: "The book catalog: list, show or export books.",
        subcommands: [BooksListCommand.self, BooksShowCommand.self, BooksExportCommand.self])
}
