import ArgumentParser
import Foundation
import Jobs
import Synchronization

/// `reparto watch ID`: live progress of a production until it finishes (LISTEN/NOTIFY driven).
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Follow a production's progress until it finishes.")

    @OptionGroup var cluster: ClusterOptions

    @Argument(help: "Production id (or name).")
    var id: String

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 3600

    func run() async throws {
        let logger = cluster.makeLogger("reparto.watch")
        let production = UUID(uuidString: id) ?? ProductionName.id(for: id)
        let final = try await cluster.withPostgres(logger: logger) { postgres in
            let printer = ProgressPrinter()
            return try await JobClient(postgres: postgres).awaitProduction(
                production, timeout: timeout, logger: logger, onProgress: { printer.show($0) })
        }
        print("production \(final.id.uuidString.lowercased()) \(final.state): \(final.succeeded) succeeded, \(final.failed) failed, \(final.cancelled) cancelled")
    }
}

/// Prints a progress line whenever the numbers change.
final class ProgressPrinter: Sendable {
    private let last = Mutex<String>("")
    private let started = ContinuousClock.now

    func show(_ progress: ProductionProgress) {
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        let rate = elapsed > 0 ? Double(progress.done) / elapsed : 0
        var line = "\(progress.stage): \(progress.done)/\(progress.total) done (\(String(format: "%.1f", progress.percent))%)"
        line += ", running \(progress.running), queued \(progress.queued), failed \(progress.failed)"
        if rate > 0 { line += ", \(String(format: "%.0f", rate))/s" }
        if let eta = progress.eta, !progress.isFinished {
            line += ", ETA \(String(format: "%.0f", max(0, eta.timeIntervalSinceNow))) s"
        }
        let changed = last.withLock { last in
            defer { last = line }
            return last != line
        }
        if changed { print(line) }
    }
}
