import ArgumentParser
import RepartoRuntime
import TerminalText

/// `reparto prune [--dry-run] [--older-than 7d]`: retention on demand.
struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove finished jobs, finished productions and gone workers' rows past their retention.",
        discussion: """
            Retention comes from REPARTO_RETENTION (finished jobs and productions, default 30d), \
            REPARTO_DEAD_RETENTION (dead jobs, default 90d) and REPARTO_WORKER_RETENTION (worker rows, default 1d); \
            --older-than replaces all three. The coordinator leader runs the same pruning every minute.
            """)

    @OptionGroup var cluster: ClusterOptions
    @Flag(help: "Count what would be removed; remove nothing.") var dryRun = false
    @Option(help: "Remove what finished longer ago than this (30d, 12h, 90m, 1d12h), whatever its class.") var olderThan: String?

    func run() async throws {
        let policy = try olderThan.map { try RetentionPolicy(all: RetentionPolicy.seconds($0, setting: "--older-than")) }
            ?? RetentionPolicy(configuration: try cluster.configuration)
        let report = try await cluster.withJobClient("reparto.prune") { try await $0.prune(policy, dryRun: dryRun) }
        print(HousekeepingText.prune(report, policy: policy, dryRun: dryRun))
    }
}
