import SpeechJobs
import Assets
import Foundation
import RepartoRuntime
import Postgres
import Speech
import Threading

/// The `assemble` job kind of the table-read pipeline: the fan-in after generation.
///
/// Streams every line's audio into `productions/<id>/table-read.wav` in (chapterIndex,
/// orderIndex) order with pauses (longer at scene and chapter changes), and writes
/// `table-read.vtt` (a WebVTT cue per spoken line), `chapters.json` and `report.json` (what is
/// missing and why) next to it, with the folder's `metadata.json`. The figures (duration, peak
/// and RMS level) and paths are recorded on the production in the job's completion transaction.
/// Every file is written atomically and the job only reads what earlier stages stored, so a
/// redelivery or retry rewrites identical outputs.
public struct AssembleJob: JobParameters {
    public static let kind = "table-read.assemble"
    public static let queue = "assemble"

    public var productionID: UUID

    public init(productionID: UUID) {
        self.productionID = productionID
    }

    /// Registers the kind; it needs `environment.postgres` (else every job fails with that reason).
    public static func register(in registry: JobRegistry, environment: SpeechEnvironment) {
        let root = environment.assetsRoot
        let postgres = environment.postgres
        let ffmpeg = FFmpegTool.locate(environment: environment.variables)
        registry.register(AssembleJob.self, timeout: 1800) { parameters, context in
            guard let postgres else { throw JobError.permanent("assemble: this worker has no database connection") }
            return try await run(parameters, context: context, postgres: postgres, assetsRoot: root, ffmpeg: ffmpeg)
        }
    }

    static func run(_ job: AssembleJob, context: JobContext, postgres: PostgresClient, assetsRoot: URL,
                    ffmpeg: FFmpegTool?) async throws -> TableReadOutputs {
        let productionID = job.productionID
        let input = try await postgres.withConnection { connection -> TableReadAssembler.Input? in
            guard let (request, documentID) = try TableReadRows.context(productionID, on: connection) else { return nil }
            let titlePage = try documentID.map { try DocumentRows.titlePage($0, on: connection) } ?? []
            func entry(_ keys: [String]) -> String? {
                titlePage.first { keys.contains($0.key.lowercased()) }.map { $0.values.joined(separator: " ") }
            }
            return TableReadAssembler.Input(
                productionID: productionID, documentID: documentID, sourceName: request.sourceName,
                lines: try TableReadRows.assemblyLines(productionID, on: connection),
                failures: try TableReadRows.generationFailures(productionID, on: connection),
                sceneHeadings: try TableReadRows.sceneHeadings(productionID, on: connection),
                parseWarnings: try documentID.map { try DocumentRows.warnings($0, on: connection) } ?? [],
                formats: request.formats ?? [], title: entry(["title"]), author: entry(["author", "authors", "written by"]),
                master: request.master ?? .podcast)
        }
        guard let input else { throw JobError.permanent("assemble: production \(productionID) is not a table read") }
        let (outputs, report) = try await BlockingWork.run {
            try TableReadAssembler(store: try AssetStore(root: assetsRoot), ffmpeg: ffmpeg).assemble(input)
        }
        context.logger.info("assembled table read", metadata: [
            "seconds": "\(outputs.durationSeconds.rounded())", "spoken": "\(report.spokenLines)", "missing": "\(report.missing.count)",
            "master": "\(input.master.rawValue)",
            "loudness": "\(report.loudness.map { $0.integratedLUFS.map { "\($0) LUFS" } ?? "not normalized: \($0.reason ?? "")" } ?? "-")",
            "path": "\(outputs.audio.path)",
        ])
        let jobID = context.jobID
        context.transactional { connection in
            try TableReadRows.recordAssembly(productionID, outputs: outputs, jobID: jobID, on: connection)
        }
        return outputs
    }
}
