import ArgumentParser
import Foundation
import ProductionKit
import TerminalText

/// `reparto books review keep ID [--json]`.
struct BooksReviewKeepCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keep",
        abstract: "Keep an imported book as the reader wrote it: close its review item without applying any candidate.",
        discussion: "For items about a catalog book (an imported row without ISBN that no book matched surely).")

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "The item's id, or at least its first 8 hex digits.") var id: String
    @Flag(help: "Print the decided item as JSON.") var json = false

    func run() async throws {
        let review = try await cluster.withReviews { reviews in try await reviews.keep(try await reviews.resolve(id)) }
        print(json ? try JSONText.pretty(review) : BookReviewText.decided(review), terminator: json ? "\n" : "")
    }
}
