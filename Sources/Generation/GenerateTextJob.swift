import Assets
import Foundation
import Jobs
import Providers

/// The `generate-text` job kind: one text from the first provider of ``providers`` that answers,
/// stored as a `generated_content` row (`text/plain`, inline up to 8 KiB, else a file on the
/// asset volume), reused when the same provider, model, parameters and messages were answered
/// before (unless ``fresh``).
///
/// ```swift
/// try await client.enqueue(GenerateTextJob(providers: ["anthropic", "openai"],
///                                          request: TextGenerationRequest(prompt: "A logline for …")))
/// ```
public struct GenerateTextJob: JobParameters {
    /// `generate-text`.
    public static let kind = "generate-text"
    /// `generate`: the queue of generation workers.
    public static let queue = "generate"
    /// Seconds one attempt may run (every provider of the chain included).
    public static let timeout: Double = 600

    /// The fallback chain, tried in order.
    public var providers: [String]
    public var request: TextGenerationRequest
    /// True: ask the provider even when a stored answer exists (and replace it).
    public var fresh: Bool?

    public init(providers: [String], request: TextGenerationRequest, fresh: Bool = false) {
        (self.providers, self.request, self.fresh) = (providers, request, fresh ? true : nil)
    }

    /// `provider:NAME` of the chain's first provider.
    public var limitKey: String? { providers.first.map { "provider:\($0)" } }

    /// What a `generate-text` job returns.
    public struct Result: Codable, Sendable, Hashable {
        /// The provider that answered, and its model.
        public var provider: String
        public var model: String
        /// The `generated_content` row.
        public var contentID: UUID
        public var contentKey: String
        /// The text when stored inline; nil when it is in ``path``.
        public var text: String?
        public var path: String?
        public var inputTokens: Int?
        public var outputTokens: Int?
        /// True when a stored answer was used.
        public var reused: Bool
        /// The providers tried before, each with its failure.
        public var failures: [String]
    }
}

/// The work behind `generate-text`.
struct TextGenerator: Sendable {
    let providers: GenerationProviderRegistry
    let storage: GenerationStorage
    let chain: ProviderChainRunner

    func run(_ job: GenerateTextJob, context: JobContext) async throws -> GenerateTextJob.Result {
        do { try job.request.validate() } catch { throw JobError.permanent("generate-text: \(error)") }
        let request = job.request
        let fresh = job.fresh ?? false
        let answer = try await chain.run(job.providers, context: context) { id -> GenerateTextJob.Result in
            let provider = try providers.textProvider(id)
            let model = request.model ?? provider.defaultModels[.text] ?? ""
            let contentKey = GenerationKey.text(provider: id, model: model, request: request)
            let key = contentKey.description
            if !fresh, let stored = try await storage.lookup([key])[key], try await storage.isComplete(stored) {
                return GenerateTextJob.Result(provider: id, model: stored.model, contentID: stored.id, contentKey: key,
                                              text: stored.inlineText, path: stored.filePath, inputTokens: nil, outputTokens: nil,
                                              reused: true, failures: [])
            }
            var pinned = request
            pinned.model = model
            let generated = try await provider.generateText(pinned)
            // The tokens used replace the job's estimated cost against its limit's budget
            // (a `provider:NAME` limit with `--budget 90000/min` counts tokens per minute).
            if let input = generated.inputTokens, let output = generated.outputTokens { context.reportCost(Double(input + output)) }
            var content = GeneratedContent(mimeType: "text/plain; charset=utf-8", contentKey: key, provider: id,
                                           model: generated.model.isEmpty ? model : generated.model, jobID: context.jobID)
            let bytes = Data(generated.text.utf8)
            if bytes.count <= GeneratedContent.inlineTextLimit {
                content.inlineText = generated.text
            } else {
                let store = try await storage.store()
                let record = try await store.write(bytes, to: contentKey.relativePath(fileExtension: "txt"),
                                                   mimeType: "text/plain")
                (content.filePath, content.sizeBytes, content.sha256) = (record.path, record.size, record.sha256)
            }
            let row = content
            let usage = UsageEntry(jobID: context.jobID, productionID: context.productionID, provider: id, model: row.model,
                                   capability: "text", inputTokens: generated.inputTokens ?? 0, outputTokens: generated.outputTokens ?? 0,
                                   characters: (request.system ?? "").count + request.messages.reduce(0) { $0 + $1.content.count })
            UsageMetrics.record(usage)
            context.transactional { connection in
                try GenerationRows.upsert(row, on: connection)
                try GenerationRows.insertUsage(usage, on: connection)
            }
            return GenerateTextJob.Result(provider: id, model: row.model, contentID: row.id, contentKey: key, text: row.inlineText,
                                          path: row.filePath, inputTokens: generated.inputTokens, outputTokens: generated.outputTokens,
                                          reused: false, failures: [])
        }
        var result = answer.value
        result.failures = answer.failures
        if result.reused {
            let usage = UsageEntry(jobID: context.jobID, productionID: context.productionID, provider: result.provider,
                                   model: result.model, capability: "text", reused: true)
            UsageMetrics.record(usage)
            context.transactional { try GenerationRows.insertUsage(usage, on: $0) }
        }
        return result
    }
}
