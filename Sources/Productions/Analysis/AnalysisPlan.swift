import Foundation
import RepartoRuntime
import Postgres

/// The analysis's stages: every scene's summary and embedding (fan-out), then the logline and
/// synopsis from the summaries (fan-in) beside one description per character from their lines;
/// then, when a storyboard was asked for, one frame per summarized scene (a frame is drawn from
/// the scene's summary, so it waits for it); finished after that, or after the scenes when none
/// has a summary.
public struct AnalysisPlan: ProductionPlan {
    public init() {}

    public var name: String { AnalysisRequest.plan }

    public func advance(_ production: ProductionSnapshot, on connection: PostgresConnection) throws -> StageDecision {
        let request = try JSONDecoder().decode(AnalysisRequest.self, from: production.parameters)
        switch AnalysisRequest.Stage(rawValue: production.stage) {
        case .scenes:
            guard try !AnalysisRows.summaries(production.id, on: connection).isEmpty else { return .finish }
            let options = request.jobOptions(productionID: production.id, stage: .synopsis)
            let fresh: Bool? = request.fresh ? true : nil
            let synopsis = try JobRequest(SynopsisJob(productionID: production.id, textProviders: request.textProviders, fresh: fresh),
                                          options: options)
            let characters = try AnalysisRows.characters(production.id, on: connection).map { character in
                try JobRequest(CharacterJob(productionID: production.id, character: character, textProviders: request.textProviders,
                                            fresh: fresh), options: options)
            }
            return .next(stage: AnalysisRequest.Stage.synopsis.rawValue, jobs: [synopsis] + characters)
        case .synopsis:
            guard let storyboard = request.storyboard else { return .finish }
            let scenes = try AnalysisRows.summarizedScenes(production.id, on: connection)
            guard !scenes.isEmpty else { return .finish }
            let options = request.jobOptions(productionID: production.id, stage: .storyboard)
            let fresh: Bool? = request.fresh ? true : nil
            let frames = try scenes.map { scene in
                try JobRequest(StoryboardFrameJob(productionID: production.id, scene: scene.index, heading: scene.heading,
                                                  summary: scene.summary, storyboard: storyboard, fresh: fresh), options: options)
            }
            return .next(stage: AnalysisRequest.Stage.storyboard.rawValue, jobs: frames)
        case .storyboard, nil:
            return .finish
        }
    }
}
