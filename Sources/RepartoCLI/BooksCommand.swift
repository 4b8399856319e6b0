import ArgumentParser

/// `reparto books list|show`: the book catalog.
struct BooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "books", abstract: "The book catalog: list or show books.",
        subcommands: [BooksListCommand.self, BooksShowCommand.self])
}
