import Assets
import Foundation
import RepartoRuntime
import Providers

/// The `text.generate` job kind: one text from the first provider of its chain that answers,
/// stored as a `generated_content` row (`text/plain`, inline up to 8 KiB, else a file on the
/// asset volume), reused when the same provider, model, parameters and messages were answered
/// before (unless `fresh`).
public typealias GenerateTextJob = SingleResultJob<TextGenerationRequest>

extension TextGenerationRequest: SingleResultRequest {
    public typealias JobResult = GenerateTextResult
    /// `text.generate`.
    public static var jobKind: String { "text.generate" }
}

/// What a `text.generate` job returns.
public struct GenerateTextResult: Codable, Sendable, Hashable {
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

/// The work behind `text.generate`.
struct TextGenerator: Sendable {
    let providers: GenerationProviderRegistry
    let work: SingleResultGeneration

    func run(_ job: GenerateTextJob, context: JobContext) async throws -> GenerateTextJob.Result {
        do { try job.request.validate() } catch { throw JobError.permanent("\(GenerateTextJob.kind): \(error)") }
        let request = job.request
        return try await work.run(job.providers, capability: .text, fresh: job.fresh ?? false, context: context, key: { id in
            let provider = try providers.textProvider(id)
            return GenerationKey.text(provider: id, model: request.model ?? provider.defaultModels[.text] ?? "", request: request)
        }, reused: { id, stored in
            GenerateTextJob.Result(provider: id, model: stored.model, contentID: stored.id, contentKey: stored.contentKey,
                                   text: stored.inlineText, path: stored.filePath, inputTokens: nil, outputTokens: nil,
                                   reused: true, failures: [])
        }, make: { id, contentKey in
            let provider = try providers.textProvider(id)
            var pinned = request
            pinned.model = request.model ?? provider.defaultModels[.text] ?? ""
            let generated = try await provider.generateText(pinned)
            // The tokens used replace the job's estimated cost against its limit's budget
            // (a `provider:NAME` limit with `--budget 90000/min` counts tokens per minute).
            if let input = generated.inputTokens, let output = generated.outputTokens { context.reportCost(Double(input) + Double(output)) }
            var row = GeneratedContent(mimeType: "text/plain; charset=utf-8", contentKey: contentKey.description, provider: id,
                                       model: generated.model.isEmpty ? pinned.model ?? "" : generated.model, jobID: context.jobID)
            let bytes = Data(generated.text.utf8)
            if bytes.count <= GeneratedContent.inlineTextLimit {
                row.inlineText = generated.text
            } else {
                let record = try await work.write(bytes, key: contentKey, fileExtension: "txt", mimeType: "text/plain")
                (row.filePath, row.sizeBytes, row.sha256) = (record.path, record.size, record.sha256)
            }
            let usage = UsageEntry(jobID: context.jobID, productionID: context.productionID, provider: id, model: row.model,
                                   capability: "text", inputTokens: generated.inputTokens ?? 0, outputTokens: generated.outputTokens ?? 0,
                                   characters: (request.system ?? "").count + request.messages.reduce(0) { $0 + $1.content.count })
            let result = GenerateTextJob.Result(provider: id, model: row.model, contentID: row.id, contentKey: row.contentKey,
                                                text: row.inlineText, path: row.filePath, inputTokens: generated.inputTokens,
                                                outputTokens: generated.outputTokens, reused: false, failures: [])
            return (row, usage, result)
        }, failures: \.failures)
    }
}
