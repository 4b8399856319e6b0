import Foundation
import Jobs
import Providers

/// The `generate-image` job kind: one PNG from a prompt, written to the asset volume
/// (`cache/image/…/<key>.png`, atomically, with its SHA-256) and recorded as a
/// `generated_content` row (`image/png`); the same provider, model, size and prompt reuse it
/// (unless ``fresh``).
public struct GenerateImageJob: JobParameters {
    /// `generate-image`.
    public static let kind = "generate-image"
    public static let queue = "generate"
    public static let timeout: Double = 600

    public var providers: [String]
    public var request: ImageRequest
    public var fresh: Bool?

    public init(providers: [String], request: ImageRequest, fresh: Bool = false) {
        (self.providers, self.request, self.fresh) = (providers, request, fresh ? true : nil)
    }

    public var limitKey: String? { providers.first.map { "provider:\($0)" } }

    /// What a `generate-image` job returns.
    public struct Result: Codable, Sendable, Hashable {
        public var provider: String
        public var model: String
        public var contentID: UUID
        public var contentKey: String
        /// The PNG, relative to the asset root.
        public var path: String
        public var sha256: String
        public var sizeBytes: Int64
        public var revisedPrompt: String?
        public var reused: Bool
        public var failures: [String]
    }
}

/// The work behind `generate-image`.
struct ImageGenerator: Sendable {
    let providers: GenerationProviderRegistry
    let storage: GenerationStorage
    let chain: ProviderChainRunner

    func run(_ job: GenerateImageJob, context: JobContext) async throws -> GenerateImageJob.Result {
        do { try job.request.validate() } catch { throw JobError.permanent("generate-image: \(error)") }
        let request = job.request
        let fresh = job.fresh ?? false
        let answer = try await chain.run(job.providers, context: context) { id -> GenerateImageJob.Result in
            let provider = try providers.imageProvider(id)
            let model = request.model ?? provider.defaultModels[.image] ?? ""
            let contentKey = GenerationKey.image(provider: id, model: model, request: request)
            let key = contentKey.description
            if !fresh, let stored = try await storage.lookup([key])[key], let path = stored.filePath, try await storage.isComplete(stored) {
                let usage = UsageEntry(jobID: context.jobID, productionID: context.productionID, provider: id, model: stored.model,
                                       capability: "image", reused: true)
                UsageMetrics.record(usage)
                context.transactional { try GenerationRows.insertUsage(usage, on: $0) }
                return GenerateImageJob.Result(provider: id, model: stored.model, contentID: stored.id, contentKey: key, path: path,
                                               sha256: stored.sha256 ?? "", sizeBytes: stored.sizeBytes ?? 0, revisedPrompt: nil,
                                               reused: true, failures: [])
            }
            var pinned = request
            pinned.model = model
            let image = try await provider.generateImage(pinned)
            let store = try await storage.store()
            let record = try await store.write(image.png, to: contentKey.relativePath(fileExtension: "png"), mimeType: "image/png")
            let row = GeneratedContent(mimeType: "image/png", contentKey: key, provider: id, model: image.model,
                                       filePath: record.path, sizeBytes: record.size, sha256: record.sha256, jobID: context.jobID)
            let usage = UsageEntry(jobID: context.jobID, productionID: context.productionID, provider: id, model: image.model,
                                   capability: "image", characters: request.prompt.count, images: 1)
            UsageMetrics.record(usage)
            context.transactional { connection in
                try GenerationRows.upsert(row, on: connection)
                try GenerationRows.insertUsage(usage, on: connection)
            }
            return GenerateImageJob.Result(provider: id, model: image.model, contentID: row.id, contentKey: key, path: record.path,
                                           sha256: record.sha256, sizeBytes: record.size, revisedPrompt: image.revisedPrompt,
                                           reused: false, failures: [])
        }
        var result = answer.value
        result.failures = answer.failures
        return result
    }
}
