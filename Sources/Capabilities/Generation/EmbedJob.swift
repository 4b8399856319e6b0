import Foundation
import RepartoRuntime
import Providers

/// The `embed` job kind: one embedding per text, from the first provider of ``providers`` that
/// answers, each stored as a `generated_content` row (`application/x-embedding`, the vector as
/// `float4[]` with its model and dimensions). Texts already embedded by the same provider and
/// model are reused (unless ``fresh``); the rest go to the provider in batches of its
/// ``EmbeddingProvider/embeddingBatchSize``.
public struct EmbedJob: ProviderChainJob {
    /// `embed`.
    public static let kind = "text.embed"
    public static let queue = "generate"
    public static let timeout: Double = 600
    /// Most texts one job may carry (`reparto generate embed` splits larger inputs).
    public static let maximumTexts = 2_048

    public var providers: [String]
    public var texts: [String]
    /// The model; nil: the provider's default.
    public var model: String?
    public var fresh: Bool?

    public init(providers: [String], texts: [String], model: String? = nil, fresh: Bool = false) {
        (self.providers, self.texts, self.model, self.fresh) = (providers, texts, model, fresh ? true : nil)
    }

    private enum CodingKeys: String, CodingKey {
        case providers, texts, model, fresh
    }

    /// Refuses a chain of no or more than 16 providers and no or more than ``maximumTexts`` texts
    /// (``JobError/invalidParameter(kind:field:reason:)``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        providers = try container.decode([String].self, forKey: .providers, count: providerChainLength)
        texts = try container.decode([String].self, forKey: .texts, count: 1...Self.maximumTexts)
        model = try container.decodeIfPresent(String.self, forKey: .model)
        fresh = try container.decodeIfPresent(Bool.self, forKey: .fresh)
    }

    /// What an `embed` job returns (the vectors are in the rows, not here).
    public struct Result: Codable, Sendable, Hashable {
        public var provider: String
        public var model: String
        public var dimensions: Int
        /// The rows, in the order of the texts.
        public var contentIDs: [UUID]
        public var contentKeys: [String]
        /// How many texts were answered from stored rows.
        public var reused: Int
        public var inputTokens: Int?
        public var failures: [String]
    }
}

/// The work behind `embed`.
struct EmbeddingGenerator: Sendable {
    let providers: GenerationProviderRegistry
    let storage: GenerationStorage
    let chain: ProviderChainRunner

    func run(_ job: EmbedJob, context: JobContext) async throws -> EmbedJob.Result {
        do { try EmbeddingRequest(texts: job.texts, model: job.model).validate() } catch { throw JobError.permanent("embed: \(error)") }
        guard job.texts.count <= EmbedJob.maximumTexts else {
            throw JobError.permanent("embed: \(job.texts.count) texts, at most \(EmbedJob.maximumTexts) per job")
        }
        let fresh = job.fresh ?? false
        let answer = try await chain.run(job.providers, context: context) { id -> EmbedJob.Result in
            let provider = try providers.embeddingProvider(id)
            let model = job.model ?? provider.defaultModels[.embedding] ?? ""
            let keys = job.texts.map { GenerationKey.embedding(provider: id, model: model, text: $0).description }
            let stored = fresh ? [:] : try await storage.lookup(Array(Set(keys)))
            var ids = keys.map { stored[$0]?.id }
            let missing = Array(Set(keys.indices.filter { stored[keys[$0]] == nil }.map { job.texts[$0] })).sorted()
            var made: [String: GeneratedContent] = [:]
            var tokens: Int? = nil
            if !missing.isEmpty {
                let embeddings = try await provider.embed(EmbeddingRequest(texts: missing, model: model))
                tokens = embeddings.inputTokens
                if let tokens { context.reportCost(Double(tokens)) }
                for (text, vector) in zip(missing, embeddings.vectors) {
                    let key = GenerationKey.embedding(provider: id, model: model, text: text).description
                    made[key] = GeneratedContent(mimeType: "application/x-embedding", contentKey: key, provider: id,
                                                  model: embeddings.model.isEmpty ? model : embeddings.model,
                                                  embedding: vector, jobID: context.jobID)
                }
                let rows = Array(made.values)
                let usage = UsageEntry(jobID: context.jobID, productionID: context.productionID, provider: id,
                                       model: rows.first?.model ?? model, capability: "embedding",
                                       inputTokens: embeddings.inputTokens ?? 0, characters: missing.reduce(0) { $0 + $1.count })
                UsageMetrics.record(usage)
                context.transactional { connection in
                    for row in rows { try GenerationRows.upsert(row, on: connection) }
                    try GenerationRows.insertUsage(usage, on: connection)
                }
            } else {
                let usage = UsageEntry(jobID: context.jobID, productionID: context.productionID, provider: id, model: model,
                                       capability: "embedding", reused: true)
                UsageMetrics.record(usage)
                context.transactional { try GenerationRows.insertUsage(usage, on: $0) }
            }
            for (index, key) in keys.enumerated() where ids[index] == nil { ids[index] = made[key]?.id }
            let dimensions = made.values.first?.embedding?.count ?? stored.values.first?.embedding?.count ?? 0
            return EmbedJob.Result(provider: id, model: made.values.first?.model ?? stored.values.first?.model ?? model,
                                   dimensions: dimensions, contentIDs: ids.compactMap { $0 }, contentKeys: keys,
                                   reused: keys.count - keys.filter { stored[$0] == nil }.count, inputTokens: tokens, failures: [])
        }
        var result = answer.value
        result.failures = answer.failures
        return result
    }
}
