import Foundation
import Generation
import RepartoRuntime

/// `analysis.frame`: one scene's storyboard frame, a PNG drawn from its heading and summary
/// through the generation kinds' work (`image.generate`: fallback chain, content-addressed reuse,
/// `generated_content` row with checksum, ledger), recorded on the scene's row with the job's success.
public struct StoryboardFrameJob: JobParameters {
    public static let kind = "analysis.frame"
    public static let queue = "generate"
    public static let timeout: Double = 600

    public var productionID: UUID
    /// 0-based index of the scene.
    public var scene: Int
    public var heading: String
    /// The scene's summary as the `scenes` stage wrote it.
    public var summary: String
    public var imageProviders: [String]
    public var size: String
    public var fresh: Bool?

    public init(productionID: UUID, scene: Int, heading: String, summary: String, storyboard: StoryboardRequest, fresh: Bool?) {
        (self.productionID, self.scene, self.heading, self.summary) = (productionID, scene, heading, summary)
        (self.imageProviders, self.size, self.fresh) = (storyboard.imageProviders, storyboard.size, fresh)
    }

    /// `provider:NAME` of the first image provider: every frame goes through the image provider's limit.
    public var limitKey: String? { imageProviders.first.map { "provider:\($0)" } }

    /// What a frame job returns.
    public struct Result: Codable, Sendable, Hashable {
        public var provider: String
        /// The PNG, relative to the asset root.
        public var path: String
        public var sha256: String
        public var reused: Bool
    }

    /// Registers `analysis.frame`.
    static func register(in registry: JobRegistry, generators: Generators) {
        registry.register(StoryboardFrameJob.self, timeout: timeout) { job, context in
            let image = try await generators.generateImage(
                GenerateImageJob(providers: job.imageProviders,
                                 request: AnalysisPrompts.storyboardFrame(heading: job.heading, summary: job.summary, size: job.size),
                                 fresh: job.fresh ?? false),
                context: context)
            let frame = AnalysisResults.Frame(path: image.path, sha256: image.sha256, provider: image.provider)
            let (production, scene, key) = (job.productionID, job.scene, image.contentKey)
            context.transactional { try AnalysisRows.setFrame(production, scene: scene, frame: frame, contentKey: key, on: $0) }
            return Result(provider: image.provider, path: image.path, sha256: image.sha256, reused: image.reused)
        }
    }
}
