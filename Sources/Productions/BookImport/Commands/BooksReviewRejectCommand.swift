import ArgumentParser
import Foundation
import ProductionKit
import TerminalText

/// `reparto books review reject ID [--json]`.
struct BooksReviewRejectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reject", abstract: "Reject a review item: nothing is added to the catalog.")

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "The item's id, or at least its first 8 hex digits.") var id: String
    @Flag(help: "Print the decided item as JSON.") var json = false

    func run() async throws {
        let review = try await cluster.withReviews { reviews in try await reviews.reject(try await reviews.resolve(id)) }
        print(json ? try JSONText.pretty(review) : BookReviewText.decided(review), terminator: json ? "\n" : "")
    }
}
