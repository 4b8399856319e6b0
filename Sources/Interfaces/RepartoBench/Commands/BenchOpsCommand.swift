import ArgumentParser
import CommandOptions
import Foundation

/// `reparto bench ops`: the operations views and retention over a month of history.
struct BenchOpsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ops",
        abstract: "Fill a database of its own with finished jobs, then time every operations view, lookups and retention.")

    @OptionGroup var cluster: ClusterOptions
    @Option(help: "Finished jobs in the history.") var rows: Int = 10_000_000
    @Option(help: "Days the history spans.") var days: Int = 30
    @Option(help: "Productions the jobs belong to.") var productions: Int = 20_000
    @Option(help: "Percent of the finished jobs that are dead.") var deadPercent: Double = 2
    @Option(help: "Jobs waiting in the queue.") var queued: Int = 50_000
    @Option(help: "Runs of each view (median and worst are reported).") var repeats: Int = 5
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard (1_000...100_000_000).contains(rows), (2...365).contains(days), (1...1_000_000).contains(productions),
              deadPercent.isFinite, (0...100).contains(deadPercent), (0...10_000_000).contains(queued), (1...100).contains(repeats) else {
            throw ValidationError("--rows 1000…1e8, --days 2…365, --productions 1…1e6, --dead-percent 0…100, --queued 0…1e7, --repeats 1…100")
        }
    }

    func run() async throws {
        let benchmark = OpsBenchmark(rows: rows, days: days, productions: productions, deadPercent: deadPercent, queued: queued,
                                     repeats: repeats)
        let report = try await benchmark.run(admin: try cluster.postgresConfiguration(applicationName: "reparto-bench"),
                                             logger: cluster.makeLogger("reparto.bench"))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report, terminator: "")
        }
    }
}
