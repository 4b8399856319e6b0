import SpeechJobs
import Foundation
import RepartoRuntime
import Postgres

/// The `table-read` production plan: parse → enrich → generate → assemble.
///
/// - **parse**: one ``ParseJob`` (created at submission). When it succeeded, the document id is
///   recorded and enrich starts; when it failed, the production ends with failures.
/// - **enrich**: one ``EnrichJob``: characters, scenes, runtime, the cast and the speakable lines.
/// - **generate**: fan-out, one ``SpeechJob`` per line (``TableReadRequest/linesPerJob``) whose
///   audio does not exist yet; lines with the same text, voice, provider and language as audio
///   already generated (by this production or any other) are skipped. When nothing is missing,
///   the stage is skipped.
/// - **assemble**: fan-in, one ``AssembleJob`` once every speech job is finished, whatever
///   their outcome: the report lists the lines that have no audio.
///
/// The coordinator calls ``advance(_:on:)`` exactly once per finished stage, in the transaction
/// that records the transition.
public struct TableReadPlan: ProductionPlan {
    public init() {}

    public var name: String { TableReadRequest.plan }

    /// What comes after a finished stage, decided from what the stage left behind (pure: the
    /// facts are read by ``advance(_:on:)``).
    enum Step: Equatable {
        /// The parse succeeded: record the document, then enrich.
        case enrich(documentID: UUID)
        /// Generate the audio of these lines, in jobs of at most `linesPerJob` lines.
        case generate([[TableReadLine]])
        case assemble
        case finish
    }

    /// The next step after `stage`: `parsed` is the parse job's document (nil when it failed),
    /// `enrichSucceeded` whether the enrich job succeeded, `pending` the lines without audio.
    static func step(after stage: TableReadRequest.Stage?, parsed: UUID?, enrichSucceeded: Bool,
                     pending: [TableReadLine], linesPerJob: Int) -> Step {
        switch stage {
        case .parse:
            return parsed.map { .enrich(documentID: $0) } ?? .finish
        case .enrich:
            guard enrichSucceeded else { return .finish }
            guard !pending.isEmpty else { return .assemble }
            let size = min(max(1, linesPerJob), 100)  // the client's range; stored parameters may say anything
            return .generate(stride(from: 0, to: pending.count, by: size).map { Array(pending[$0..<min($0 + size, pending.count)]) })
        case .generate:
            return .assemble
        case .assemble, nil:
            return .finish
        }
    }

    public func advance(_ production: ProductionSnapshot, on connection: PostgresConnection) throws -> StageDecision {
        let request = try JSONDecoder().decode(TableReadRequest.self, from: production.parameters)
        let options = request.jobOptions
        let stage = TableReadRequest.Stage(rawValue: production.stage)
        // Read only what the finished stage's decision needs.
        let parsed = stage == .parse ? try TableReadRows.parseResult(production.id, on: connection) : nil
        let enrichSucceeded = stage == .enrich
            ? try TableReadRows.stageSucceeded(production.id, stage: production.stage, on: connection) : false
        let pending = enrichSucceeded ? try TableReadRows.linesNeedingAudio(production.id, on: connection) : []
        switch Self.step(after: stage, parsed: parsed?.documentID, enrichSucceeded: enrichSucceeded, pending: pending,
                         linesPerJob: request.linesPerJob) {
        case .enrich(let documentID):
            try TableReadRows.setDocument(production.id, documentID: documentID, on: connection)
            return .next(stage: TableReadRequest.Stage.enrich.rawValue,
                         jobs: [try JobRequest(EnrichJob(productionID: production.id), options: options)])
        case .generate(let batches):
            let documentID = try TableReadRows.context(production.id, on: connection)?.documentID
            let jobs = try batches.map { batch in
                let items = batch.map { line in
                    SpeechJob.Item(text: line.providerText, voice: line.voice, provider: line.provider, language: line.language,
                                     options: line.synthesisOptions == .standard ? nil : line.synthesisOptions,
                                     owner: .init(kind: .element, id: Self.elementID(documentID, line)))
                }
                return try JobRequest(SpeechJob(items: items), options: options)
            }
            return .next(stage: TableReadRequest.Stage.generate.rawValue, jobs: jobs)
        case .assemble:
            return .next(stage: TableReadRequest.Stage.assemble.rawValue,
                         jobs: [try JobRequest(AssembleJob(productionID: production.id), options: options)])
        case .finish:
            return .finish
        }
    }

    /// `document/chapter/order`, the owner id of a line's audio.
    static func elementID(_ documentID: UUID?, _ line: TableReadLine) -> String {
        "\(documentID?.uuidString.lowercased() ?? "unknown")/\(line.chapterIndex)/\(line.orderIndex)"
    }
}
