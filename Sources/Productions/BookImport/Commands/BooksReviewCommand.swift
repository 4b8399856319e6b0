import ArgumentParser
import Foundation
import ProductionKit

/// `reparto books review [list] | accept ID | reject ID | keep ID`: the review list.
struct BooksReviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "The review list: titles read (shelf spines, rows without ISBN) that matched no book surely enough.",
        discussion: """
            An item is opened when no catalog or Open Library book scores at or above the match threshold; \
            nothing is added or merged until a person accepts a candidate (or the title and author as read) \
            or rejects the item. An item about an imported book is decided for that book: accept applies the \
            candidate to it, keep leaves it as the reader wrote it. IDs are the whole UUID or at least its first \
            8 hex digits.
            """,
        subcommands: [BooksReviewListCommand.self, BooksReviewAcceptCommand.self, BooksReviewRejectCommand.self,
                      BooksReviewKeepCommand.self],
        defaultSubcommand: BooksReviewListCommand.self)
}

extension ClusterOptions {
    /// Runs `body` with the review list's client, turning its refusals into one-line CLI errors.
    func withReviews<T>(enrichAdded: Bool = false, _ body: (BookReviewClient) async throws -> T) async throws -> T {
        let politeness = enrichAdded ? try BookServiceSettings(configuration: configuration).politeLimit : nil
        return try await withPostgres(logger: makeLogger("reparto.books")) { postgres in
            do {
                return try await body(BookReviewClient(postgres: postgres, enrichAdded: enrichAdded, politeness: politeness))
            } catch let error as BookReviewError {
                throw CLIError(error.description)
            } catch let error as CatalogBooksError {
                throw CLIError(error.description)
            }
        }
    }
}
