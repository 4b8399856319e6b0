import ProductionKit
import ArgumentParser

/// `reparto books list|show|export|review`: the book catalog and its review list.
struct BooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "books", abstract: "The book catalog: list, show or export books; review titles read that matched no book surely.",
        subcommands: [BooksListCommand.self, BooksShowCommand.self, BooksExportCommand.self, BooksReviewCommand.self])
}
