import ArgumentParser
import Foundation
import ProductionKit
import TerminalText

/// `reparto books review accept ID (--candidate N | --as-read) [--no-enrich] [--json]`.
struct BooksReviewAcceptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "Accept a review item: add one of its candidates, or the title and author as read, to the catalog.",
        discussion: """
            A candidate whose ISBN-13 the catalog has already is that book: nothing is added twice. A book added \
            is enriched (details and cover) by the workers unless --no-enrich is given. For an item about an \
            imported book, the candidate is applied to that book (its cover fetched unless --no-enrich), and \
            --as-read keeps the book as it is.
            """)

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "The item's id, or at least its first 8 hex digits.") var id: String
    @Option(help: "The candidate to add: 0 is the best (the list's BEST CANDIDATE), then as --json lists them.") var candidate: Int?
    @Flag(help: "Add a book with the title and author as read instead.") var asRead = false
    @Flag(help: "Do not enqueue enrichment for a book added.") var noEnrich = false
    @Flag(help: "Print the decided item as JSON.") var json = false

    func run() async throws {
        if candidate != nil && asRead { throw CLIError("give either --candidate N or --as-read, not both") }
        if candidate == nil && !asRead { throw CLIError("give --candidate N (0 is the best candidate) or --as-read") }
        if let candidate, candidate < 0 { throw CLIError("--candidate must be 0 or more, not \(candidate)") }
        let review = try await cluster.withReviews(enrichAdded: !noEnrich) { reviews in
            try await reviews.accept(try await reviews.resolve(id), candidate: candidate, asRead: asRead)
        }
        print(json ? try JSONText.pretty(review) : BookReviewText.decided(review), terminator: json ? "\n" : "")
    }
}
