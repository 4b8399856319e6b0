import ArgumentParser
import Foundation
import RepartoRuntime
import Logging
import Composition
import TableRead
import TerminalText

/// `reparto run FILE`: a whole table read in one process — migrations, a coordinator, workers
/// and the submission — for a single machine. Prints progress, then where the results are.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run a table read of a script in one process (coordinator, workers, submission).",
        discussion: "Example: reparto run examples/the-last-table-read.fountain --cast examples/cast.yaml")

    @OptionGroup var cluster: ClusterOptions
    @OptionGroup var tableRead: TableReadOptions

    @Argument(help: "The script: Fountain, Final Draft (.fdx) or Markdown.") var file: String
    @Option(help: "Workers to run (default: one per core).") var workers: Int = ProcessInfo.processInfo.activeProcessorCount
    @Option(help: "Handlers per worker (lines spoken at once by each).") var concurrency: Int = 2
    @Option(help: "Give up after this many seconds.") var timeout: Double = 24 * 3600

    func validate() throws {
        guard workers >= 1 && workers <= 64 else { throw ValidationError("--workers must be between 1 and 64") }
        guard concurrency >= 1 && concurrency <= 64 else { throw ValidationError("--concurrency must be between 1 and 64") }
    }

    func run() async throws {
        var quiet = cluster.makeLogger("reparto.run")
        // Progress goes to stdout; at the default level the services only report problems.
        if cluster.logLevel == "info" { quiet.logLevel = .warning }
        let logger = quiet
        let options = try tableRead.submissionOptions(configuration: cluster.configuration)
        let assets = ClusterSettings.assetsRoot(try cluster.configuration)
        let file = self.file, workers = self.workers, timeout = self.timeout
        let outcome: TableReadResults??
        do {
            outcome = try await InProcessCluster.run(configuration: try cluster.configuration, workers: workers, concurrency: concurrency,
                                                     namespace: try cluster.resolvedNamespace, assetsRoot: assets, logger: logger) { postgres in
                let tableReads = TableReadClient(postgres: postgres, assetsRoot: assets)
                let id = try await tableReads.submit(file: URL(fileURLWithPath: file), options: options)
                print("production \(id.uuidString.lowercased()): \(URL(fileURLWithPath: file).lastPathComponent), \(workers) worker(s)")
                let view = StageProgressView(stageOrder: TableReadRequest.Stage.allCases.map(\.rawValue))
                return try await tableReads.awaitResults(id, timeout: timeout, logger: logger) { view.show($0) }
            }
        } catch is CancellationError {
            throw CLIError("interrupted: the production keeps what is finished and goes on when a coordinator and workers run (reparto watch ID)")
        }
        guard let outcome = outcome ?? nil else { throw CLIError("interrupted before the table read finished") }
        print(TableReadText(assetsRoot: assets).summary(outcome), terminator: "")
        if outcome.state != "completed" { throw ExitCode(1) }
    }
}
