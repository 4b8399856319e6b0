import ArgumentParser
import Foundation
import RepartoRuntime
import TerminalText

/// `reparto limit set|list|delete`: cluster-wide rate, concurrency and budget limits.
struct LimitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limit", abstract: "Cluster-wide limits: rate, concurrency and cost budget, obeyed by every worker.",
        subcommands: [Set.self, List.self, Delete.self])

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Create or change a limit.",
            discussion: "Example: reparto limit set provider:openai --rate 20/s --burst 5 --concurrency 8 --budget 90000/min")

        @OptionGroup var cluster: ClusterOptions
        @Argument(help: "The limit's name (jobs name it with --limit, kinds declare theirs).") var name: String
        @Option(help: "Starts per time: N/s, N/min or N/h.") var rate: String?
        @Option(help: "Starts allowed at once after a quiet period (with --rate; default: a quarter second's starts, at least 1).") var burst: Double?
        @Option(help: "Jobs under the limit running at once.") var concurrency: Int?
        @Option(help: "Cost units per time, e.g. 90000/min (jobs declare their cost with --cost).") var budget: String?
        @Option(help: "The longest a provider's Retry-After may block the limit: 90s, 30m, 2h (default 1h). Setting the limit lifts a block.")
        var maxBlock: String?

        func run() async throws {
            let spec = try LimitSpec.parse(name: name, rate: rate, burst: burst, concurrency: concurrency, budget: budget,
                                           maxBlock: maxBlock)
            try await cluster.withJobClient("reparto.limit") { try await $0.setLimit(spec) }
            print("limit \(spec.name): \(LimitText.terms(spec))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Show the limits and their current use.")

        @OptionGroup var cluster: ClusterOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let limits = try await cluster.withJobClient("reparto.limit") { try await $0.limits() }
            print(json ? LimitText.json(limits) : LimitText.table(limits), terminator: "")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a limit; its waiting jobs run unlimited.")

        @OptionGroup var cluster: ClusterOptions
        @Argument(help: "The limit's name.") var name: String

        func run() async throws {
            try await cluster.withJobClient("reparto.limit") { try await $0.deleteLimit(name) }
            print("deleted limit \(name)")
        }
    }
}
