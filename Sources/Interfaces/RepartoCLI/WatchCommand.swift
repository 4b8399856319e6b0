import Analysis
import ArgumentParser
import Foundation
import RepartoRuntime
import TableRead
import BookImport
import TerminalText

/// `reparto watch ID`: live progress of a production until it finishes (LISTEN/NOTIFY driven):
/// per-stage counts, rate, ETA and failures.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Follow a production's progress until it finishes.")

    @OptionGroup var cluster: ClusterOptions

    @Argument(help: "Production id (or name).") var id: String
    @Option(help: "Give up after this many seconds.") var timeout: Double = 3600

    func run() async throws {
        let logger = cluster.makeLogger("reparto.watch")
        let production = ProductionName.resolve(id)
        let final = try await cluster.withPostgres(logger: logger) { postgres in
            let client = JobClient(postgres: postgres)
            let first = try await client.progress(production)
            let stages = switch first.plan {
            case TableReadRequest.plan: TableReadRequest.Stage.allCases.map(\.rawValue)
            case BookImportRequest.plan: BookImportRequest.Stage.allCases.map(\.rawValue)
            case AnalysisRequest.plan: try await AnalysisClient(postgres: postgres).stages(production)?.map(\.rawValue) ?? []
            default: [String]()
            }
            let view = StageProgressView(stageOrder: stages)
            return try await client.awaitProduction(production, timeout: timeout, logger: logger, onProgress: { view.show($0) })
        }
        print("production \(final.id.uuidString.lowercased()) \(final.state): \(final.succeeded) succeeded, \(final.failed) failed, \(final.cancelled) cancelled")
    }
}
