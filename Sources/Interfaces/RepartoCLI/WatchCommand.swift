import ArgumentParser
import Composition
import Foundation
import RepartoRuntime
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
        // The cluster's database even when REPARTO_DASHBOARD_DATABASE_URL names a replica: watching
        // LISTENs for the progress NOTIFY, which a hot standby refuses and replication does not carry.
        let final = try await cluster.withPostgres(logger: logger) { postgres in
            let client = JobClient(postgres: postgres)
            let first = try await client.progress(production)
            // The stages of whichever type drives the plan (none for a batch).
            let record = try await postgres.withConnection { try ProductionJobs.production(production, on: $0) }
            let type = ProductionTypes.all.first { $0.planNames.contains(first.plan) }
            let stages = record.flatMap { record in type?.stageOrder(parameters: record.parameters) } ?? []
            let view = StageProgressView(stageOrder: stages)
            return try await client.awaitProduction(production, timeout: timeout, logger: logger, onProgress: { view.show($0) })
        }
        print("production \(final.id.uuidString.lowercased()) \(final.state): \(final.succeeded) succeeded, \(final.failed) failed, \(final.cancelled) cancelled")
    }
}
