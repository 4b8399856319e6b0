import Foundation
import Jobs
import Postgres

/// The analysis's stages: every scene's summary and embedding (fan-out), then the logline and
/// synopsis from the summaries (fan-in); finished after that, or after the scenes when none has
/// a summary.
public struct AnalysisPlan: ProductionPlan {
    public init() {}

    public var name: String { AnalysisRequest.plan }

    public func advance(_ production: ProductionSnapshot, on connection: PostgresConnection) throws -> StageDecision {
        let request = try JSONDecoder().decode(AnalysisRequest.self, from: production.parameters)
        switch AnalysisRequest.Stage(rawValue: production.stage) {
        case .scenes:
            guard try !AnalysisRows.summaries(production.id, on: connection).isEmpty else { return .finish }
            let job = SynopsisJob(productionID: production.id, textProviders: request.textProviders, fresh: request.fresh ? true : nil)
            return .next(stage: AnalysisRequest.Stage.synopsis.rawValue,
                         jobs: [try JobRequest(job, options: request.jobOptions(productionID: production.id, stage: .synopsis))])
        case .synopsis, nil:
            return .finish
        }
    }
}
