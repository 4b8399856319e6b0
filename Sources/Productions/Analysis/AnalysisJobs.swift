import Assets
import Foundation
import Generation
import RepartoRuntime
import Postgres
import Providers

/// `analysis.scene`: one scene's summary (text) and embedding, through the generation kinds'
/// work (fallback chains, reuse, rows, ledger), recorded on the scene's row with the job's success.
public struct SceneAnalysisJob: JobParameters {
    public static let kind = "analysis.scene"
    public static let queue = "generate"
    public static let timeout: Double = 600

    public var productionID: UUID
    public var scene: AnalysisScene
    public var textProviders: [String]
    public var embeddingProviders: [String]
    public var fresh: Bool?

    /// `provider:NAME` of the first text provider.
    public var limitKey: String? { textProviders.first.map { "provider:\($0)" } }

    public struct Result: Codable, Sendable, Hashable {
        public var summaryProvider: String
        public var embeddingProvider: String
        public var reused: Bool
    }
}

/// `analysis.synopsis`: the logline and the synopsis, written from the scene summaries.
public struct SynopsisJob: JobParameters {
    public static let kind = "analysis.synopsis"
    public static let queue = "generate"
    public static let timeout: Double = 600

    public var productionID: UUID
    public var textProviders: [String]
    public var fresh: Bool?

    public init(productionID: UUID, textProviders: [String], fresh: Bool? = nil) {
        (self.productionID, self.textProviders, self.fresh) = (productionID, textProviders, fresh)
    }

    public var limitKey: String? { textProviders.first.map { "provider:\($0)" } }

    public struct Result: Codable, Sendable, Hashable {
        public var provider: String
        public var scenes: Int
    }
}

/// `analysis.character`: a description of one character written from their lines.
public struct CharacterJob: JobParameters {
    public static let kind = "analysis.character"
    public static let queue = "generate"
    public static let timeout: Double = 600

    public var productionID: UUID
    public var character: AnalysisCharacter
    public var textProviders: [String]
    public var fresh: Bool?

    public var limitKey: String? { textProviders.first.map { "provider:\($0)" } }

    public struct Result: Codable, Sendable, Hashable {
        public var provider: String
        public var reused: Bool
    }
}

/// Registers the analysis kinds and says where their plan is.
public enum AnalysisKinds {
    /// The plan the coordinator drives.
    public static var plans: [any ProductionPlan] { [AnalysisPlan()] }

    /// What the analysis's rows name on the asset volume: each storyboard frame, a cache entry that
    /// eviction under `REPARTO_CACHE_MAX` must keep while its analysis exists.
    public static let assetReferences = AssetReferences(
        owner: "analysis",
        pathsSQL: "SELECT frame_path AS path FROM analysis_scenes WHERE frame_path IS NOT NULL",
        pinnedKeysSQL: "SELECT frame_key AS content_key FROM analysis_scenes WHERE frame_key IS NOT NULL")

    /// Registers `analysis.scene`, `analysis.synopsis`, `analysis.character` and `analysis.frame`.
    public static func register(in registry: JobRegistry, environment: GenerationEnvironment) {
        let generators = Generators(environment: environment)
        let postgres = environment.postgres
        let root = environment.assetsRoot
        registerCharacter(in: registry, generators: generators, root: root)
        StoryboardFrameJob.register(in: registry, generators: generators)
        registry.register(SceneAnalysisJob.self, timeout: SceneAnalysisJob.timeout) { job, context in
            let fresh = job.fresh ?? false
            let summary = try await generators.generateText(
                GenerateTextJob(providers: job.textProviders, request: AnalysisPrompts.sceneSummary(job.scene), fresh: fresh), context: context)
            let embedding = try await generators.embed(
                EmbedJob(providers: job.embeddingProviders, texts: [AnalysisPrompts.embeddingText(job.scene)], fresh: fresh), context: context)
            let text = try await Self.text(of: summary, root: root)
            guard let key = embedding.contentKeys.first else { throw JobError.permanent("analysis.scene: no embedding") }
            let (production, scene) = (job.productionID, job.scene.index)
            context.transactional { connection in
                try AnalysisRows.setScene(production, scene: scene, summary: text, provider: summary.provider, embeddingKey: key, on: connection)
            }
            return SceneAnalysisJob.Result(summaryProvider: summary.provider, embeddingProvider: embedding.provider,
                                           reused: summary.reused && embedding.reused == 1)
        }
        registry.register(SynopsisJob.self, timeout: SynopsisJob.timeout) { job, context in
            guard let postgres else { throw JobError.permanent("analysis.synopsis needs the database") }
            let production = job.productionID
            let summaries = try await postgres.withConnection { try AnalysisRows.summaries(production, on: $0) }
            guard !summaries.isEmpty else { throw JobError.permanent("analysis.synopsis: no scene summaries") }
            let fresh = job.fresh ?? false
            let logline = try await generators.generateText(
                GenerateTextJob(providers: job.textProviders, request: AnalysisPrompts.logline(summaries: summaries), fresh: fresh), context: context)
            let synopsis = try await generators.generateText(
                GenerateTextJob(providers: job.textProviders, request: AnalysisPrompts.synopsis(summaries: summaries), fresh: fresh), context: context)
            let (loglineText, synopsisText) = (try await Self.text(of: logline, root: root), try await Self.text(of: synopsis, root: root))
            context.transactional { connection in
                try AnalysisRows.setSynopsis(production, logline: loglineText, synopsis: synopsisText, on: connection)
            }
            return SynopsisJob.Result(provider: synopsis.provider, scenes: summaries.count)
        }
    }

    static func registerCharacter(in registry: JobRegistry, generators: Generators, root: URL) {
        registry.register(CharacterJob.self, timeout: CharacterJob.timeout) { job, context in
            let result = try await generators.generateText(
                GenerateTextJob(providers: job.textProviders, request: AnalysisPrompts.character(job.character), fresh: job.fresh ?? false),
                context: context)
            let text = try await Self.text(of: result, root: root)
            let (production, name) = (job.productionID, job.character.name)
            context.transactional { try AnalysisRows.setCharacter(production, name: name, description: text, on: $0) }
            return CharacterJob.Result(provider: result.provider, reused: result.reused)
        }
    }

    /// The generated text, inline or read back from its file.
    static func text(of result: GenerateTextJob.Result, root: URL) async throws -> String {
        if let text = result.text { return text }
        guard let path = result.path else { throw JobError.permanent("generated text has neither text nor file") }
        let store = try AssetStore(root: root)
        return String(decoding: try await store.read(path, maxBytes: 64 << 20), as: UTF8.self)  // a million tokens is about 4 MiB
    }
}
