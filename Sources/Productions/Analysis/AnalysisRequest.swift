import Foundation
import RepartoRuntime

/// What an analysis was asked to do, stored as `productions.params`.
public struct AnalysisRequest: Codable, Sendable, Equatable {
    /// `analysis`: the plan's name in `productions.plan`.
    public static let plan = "analysis"

    /// The stages, in order.
    public enum Stage: String, Codable, Sendable, CaseIterable {
        /// One `analysis.scene` job per scene: a summary and an embedding.
        case scenes
        /// One `analysis.synopsis` job: logline and synopsis from the summaries (and one
        /// `analysis.character` job per character).
        case synopsis
        /// With a ``StoryboardRequest``: one `analysis.frame` job per summarized scene.
        case storyboard
    }

    public var sourceName: String
    /// Fallback chains.
    public var textProviders: [String]
    public var embeddingProviders: [String]
    /// Ask the providers even for stored results.
    public var fresh: Bool
    public var maxAttempts: Int
    /// A storyboard frame per scene, when asked for (nil in analyses stored before it existed).
    public var storyboard: StoryboardRequest?

    public init(sourceName: String, textProviders: [String], embeddingProviders: [String], fresh: Bool = false, maxAttempts: Int = 5,
                storyboard: StoryboardRequest? = nil) {
        (self.sourceName, self.textProviders, self.embeddingProviders, self.fresh, self.maxAttempts) =
            (sourceName, textProviders, embeddingProviders, fresh, maxAttempts)
        self.storyboard = storyboard
    }

    /// The stages this analysis runs, in order (`storyboard` only when asked for).
    public var stages: [Stage] {
        Stage.allCases.filter { $0 != .storyboard || storyboard != nil }
    }

    func jobOptions(productionID: UUID, stage: Stage) -> JobOptions {
        JobOptions(maxAttempts: maxAttempts, productionID: productionID, stage: stage.rawValue)
    }
}
