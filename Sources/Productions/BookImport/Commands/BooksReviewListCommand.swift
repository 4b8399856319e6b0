import ArgumentParser
import Foundation
import ProductionKit
import TerminalText

/// `reparto books review [list] [--all] [--json] [--limit N]`.
struct BooksReviewListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the open review items, oldest first, each with its best candidate.")

    @OptionGroup var cluster: ClusterOptions
    @Flag(help: "Every item, accepted and rejected ones too (with a STATE column).") var all = false
    @Option(help: "At most this many items.") var limit: Int = 100
    @Flag(help: "Print JSON: every item with all its candidates, in the order --candidate counts them.") var json = false

    func run() async throws {
        guard limit >= 1 else { throw CLIError("--limit must be at least 1") }
        let reviews = try await cluster.withReviews { try await $0.list(state: all ? nil : "open", limit: limit) }
        print(json ? try JSONText.pretty(reviews) : BookReviewText.list(reviews, states: all), terminator: json ? "\n" : "")
    }
}
