import Foundation
import RepartoRuntime
import Postgres
import Providers
import Screenplay

/// The producer API of the script analysis: submit a script, follow it, read its results, retry
/// what failed, search its scenes.
///
/// ```swift
/// let analyses = AnalysisClient(postgres: pool)
/// let id = try await analyses.submit(document: script, request: request, name: "pilot")
/// var results = try await analyses.awaitResults(id, timeout: 600) { print($0.stage ?? "", $0.done, $0.total) }
/// if results?.scenes.contains(where: { $0.summary == nil }) == true {
///     try await analyses.retry(id)              // only the scenes that failed, then a new synopsis
///     results = try await analyses.awaitResults(id, timeout: 600)
/// }
/// ```
public struct AnalysisClient: Sendable {
    public let postgres: PostgresClient
    /// The asset volume's root, to give storyboard frames their absolute path (nil: relative only).
    public let assetsRoot: URL?

    public init(postgres: PostgresClient, assetsRoot: URL? = nil) {
        self.postgres = postgres
        self.assetsRoot = assetsRoot
    }

    /// Creates the production, its rows and one `analysis.scene` job per scene in one transaction.
    /// With ``AnalysisRequest/storyboard``, a frame per scene follows the synopsis stage.
    /// - Throws: ``JobError/permanent(_:)`` for a script without any text, or a storyboard without
    ///   an image provider or with a size that is not `WIDTHxHEIGHT`.
    public func submit(document: ScreenplayDocument, request: AnalysisRequest, name: String) async throws -> UUID {
        if let storyboard = request.storyboard {
            guard !storyboard.imageProviders.isEmpty else { throw JobError.permanent("a storyboard needs an image provider") }
            do { try ImageRequest(prompt: "frame", size: storyboard.size).validate() } catch { throw JobError.permanent("storyboard: \(error)") }
        }
        let scenes = AnalysisScene.scenes(of: document).filter { !$0.body.isEmpty || !$0.heading.isEmpty }
        guard !scenes.isEmpty else { throw JobError.permanent("the script has no scenes") }
        let parameters = try JSONEncoder().encode(request)
        let id = UUID.timeOrdered()
        let jobs = try scenes.map { scene in
            try JobRequest(SceneAnalysisJob(productionID: id, scene: scene, textProviders: request.textProviders,
                                            embeddingProviders: request.embeddingProviders, fresh: request.fresh ? true : nil),
                           options: request.jobOptions(productionID: id, stage: .scenes))
        }
        try await postgres.withTransaction { connection in
            _ = try JobClient.createProduction(id: id, name: name, plan: AnalysisRequest.plan, stage: AnalysisRequest.Stage.scenes.rawValue,
                                               parameters: parameters, in: connection)
            try AnalysisRows.create(id, request: request, scenes: scenes, on: connection)
            try AnalysisRows.createCharacters(id, AnalysisCharacter.characters(of: document), on: connection)
            _ = try JobClient.enqueue(jobs, in: connection)
        }
        return id
    }

    /// Follows the analysis until it finishes (per-stage progress through `onProgress`, LISTEN/NOTIFY
    /// driven), then returns its results (nil when `id` is not an analysis).
    /// - Throws: a timeout after `timeout` seconds, ``RepartoError`` for an unknown id, or the database's errors.
    public func awaitResults(_ id: UUID, timeout: Double,
                             onProgress: @escaping @Sendable (ProductionProgress) -> Void = { _ in }) async throws -> AnalysisResults? {
        _ = try await JobClient(postgres: postgres).awaitProduction(id, timeout: timeout, onProgress: onProgress)
        return try await results(id)
    }

    /// Runs again only what failed: the dead or cancelled jobs of the earliest stage that has any
    /// (the scenes whose summary or embedding failed), with fresh attempts. The production goes back
    /// to that stage, so once those scenes succeed the coordinator writes a new logline, synopsis and
    /// character descriptions (answered from stored rows where their prompts did not change).
    /// Scenes that succeeded are not asked again. Returns how many jobs were queued (0: nothing failed).
    /// - Throws: ``RepartoError/notFound(what:id:)`` for an unknown id.
    @discardableResult
    public func retry(_ id: UUID) async throws -> Int {
        try await JobClient(postgres: postgres).retry(id)
    }

    /// The stages of analysis `id` in order (`storyboard` only when it was asked for); nil when
    /// `id` is not an analysis.
    public func stages(_ id: UUID) async throws -> [AnalysisRequest.Stage]? {
        let record = try await postgres.withConnection { try ProductionJobs.production(id, on: $0) }
        guard let record, record.plan == AnalysisRequest.plan else { return nil }
        return try JSONDecoder().decode(AnalysisRequest.self, from: record.parameters).stages
    }

    /// The analysis's results (with each scene's storyboard frame, if any); nil when `id` is not an analysis.
    public func results(_ id: UUID) async throws -> AnalysisResults? {
        let root = assetsRoot
        return try await postgres.withConnection { try AnalysisRows.results(id, assetsRoot: root, on: $0) }
    }

    /// The scenes most similar to `query`: the query is embedded by the provider and model that
    /// embedded most of the scenes searched, then every scene is compared (exact cosine).
    /// - Throws: ``ProviderError`` from the embedding call; `unknownProvider` when that provider is not configured here.
    public func search(_ query: String, production: UUID?, limit: Int, providers: GenerationProviderRegistry) async throws -> [SceneMatch] {
        let vectors = try await postgres.withConnection { try AnalysisRows.sceneEmbeddings(production: production, on: $0) }
        guard !vectors.isEmpty else { return [] }
        let groups = Dictionary(grouping: vectors) { "\($0.provider)\u{0}\($0.model)" }
        let chosen = groups.values.max { $0.count < $1.count }!
        let provider = try providers.embeddingProvider(chosen[0].provider)
        let embedded = try await provider.embed(EmbeddingRequest(texts: [query], model: chosen[0].model))
        guard let vector = embedded.vectors.first else { return [] }
        return SceneSearch.rank(vector, chosen.map { (item: $0, vector: $0.vector) }, limit: limit).map { hit in
            SceneMatch(productionID: hit.item.productionID, scene: hit.item.scene, heading: hit.item.heading,
                       summary: hit.item.summary, score: hit.score)
        }
    }
}
