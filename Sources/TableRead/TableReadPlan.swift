import Foundation
import Jobs
import Postgres

/// The `table-read` production plan: parse → enrich → generate → assemble.
///
/// - **parse**: one ``ParseJob`` (created at submission). When it succeeded, the document id is
///   recorded and enrich starts; when it failed, the production ends with failures.
/// - **enrich**: one ``EnrichJob``: characters, scenes, runtime, the cast and the speakable lines.
/// - **generate**: fan-out, one ``GenerateJob`` per line (``TableReadRequest/linesPerJob``) whose
///   audio does not exist yet; lines with the same text, voice, provider and language as audio
///   already generated (by this production or any other) are skipped. When nothing is missing,
///   the stage is skipped.
/// - **assemble**: fan-in, one ``AssembleJob`` once every generate job is finished, whatever
///   their outcome: the report lists the lines that have no audio.
///
/// The coordinator calls ``advance(_:on:)`` exactly once per finished stage, in the transaction
/// that records the transition.
public struct TableReadPlan: ProductionPlan {
    public init() {}

    public var name: String { TableReadRequest.plan }

    public func advance(_ production: ProductionSnapshot, on connection: PostgresConnection) throws -> StageDecision {
        let request = try JSONDecoder().decode(TableReadRequest.self, from: production.parameters)
        let options = request.jobOptions
        switch TableReadRequest.Stage(rawValue: production.stage) {
        case .parse:
            guard let parsed = try TableReadRows.parseResult(production.id, on: connection) else { return .finish }
            try TableReadRows.setDocument(production.id, documentID: parsed.documentID, on: connection)
            return .next(stage: TableReadRequest.Stage.enrich.rawValue,
                         jobs: [try JobRequest(EnrichJob(productionID: production.id), options: options)])
        case .enrich:
            guard try TableReadRows.stageSucceeded(production.id, stage: production.stage, on: connection) else { return .finish }
            let pending = try TableReadRows.linesNeedingAudio(production.id, on: connection)
            guard !pending.isEmpty else { return try assemble(production, options: options) }
            let documentID = try TableReadRows.context(production.id, on: connection)?.documentID
            let size = max(1, request.linesPerJob)
            var jobs: [JobRequest] = []
            jobs.reserveCapacity(pending.count / size + 1)
            for start in stride(from: 0, to: pending.count, by: size) {
                let items = pending[start..<min(start + size, pending.count)].map { line in
                    GenerateJob.Item(text: line.text, voice: line.voice, provider: line.provider, language: line.language,
                                     owner: .init(kind: .element, id: Self.elementID(documentID, line)))
                }
                jobs.append(try JobRequest(GenerateJob(items: items), options: options))
            }
            return .next(stage: TableReadRequest.Stage.generate.rawValue, jobs: jobs)
        case .generate:
            return try assemble(production, options: options)
        case .assemble, nil:
            return .finish
        }
    }

    private func assemble(_ production: ProductionSnapshot, options: JobOptions) throws -> StageDecision {
        .next(stage: TableReadRequest.Stage.assemble.rawValue,
              jobs: [try JobRequest(AssembleJob(productionID: production.id), options: options)])
    }

    /// `document/chapter/order`, the owner id of a line's audio.
    static func elementID(_ documentID: UUID?, _ line: TableReadLine) -> String {
        "\(documentID?.uuidString.lowercased() ?? "unknown")/\(line.chapterIndex)/\(line.orderIndex)"
    }
}
