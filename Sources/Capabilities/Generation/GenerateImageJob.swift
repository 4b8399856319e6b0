import Foundation
import RepartoRuntime
import Providers

/// The `image.generate` job kind: one PNG from a prompt, written to the asset volume
/// (`cache/image/…/<key>.png`, atomically, with its SHA-256) and recorded as a
/// `generated_content` row (`image/png`); the same provider, model, size and prompt reuse it
/// (unless `fresh`).
public typealias GenerateImageJob = SingleResultJob<ImageRequest>

extension ImageRequest: SingleResultRequest {
    public typealias JobResult = GenerateImageResult
    /// `image.generate`.
    public static var jobKind: String { "image.generate" }
}

/// What a `image.generate` job returns.
public struct GenerateImageResult: Codable, Sendable, Hashable {
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

/// The work behind `image.generate`.
struct ImageGenerator: Sendable {
    let providers: GenerationProviderRegistry
    let work: SingleResultGeneration

    func run(_ job: GenerateImageJob, context: JobContext) async throws -> GenerateImageJob.Result {
        do { try job.request.validate() } catch { throw JobError.permanent("\(GenerateImageJob.kind): \(error)") }
        let request = job.request
        return try await work.run(job.providers, capability: .image, fresh: job.fresh ?? false, context: context, key: { id in
            let provider = try providers.imageProvider(id)
            return GenerationKey.image(provider: id, model: request.model ?? provider.defaultModels[.image] ?? "", request: request)
        }, reused: { id, stored in
            GenerateImageJob.Result(provider: id, model: stored.model, contentID: stored.id, contentKey: stored.contentKey,
                                    path: stored.filePath ?? "", sha256: stored.sha256 ?? "", sizeBytes: stored.sizeBytes ?? 0,
                                    revisedPrompt: nil, reused: true, failures: [])
        }, make: { id, contentKey in
            let provider = try providers.imageProvider(id)
            var pinned = request
            pinned.model = request.model ?? provider.defaultModels[.image] ?? ""
            let image = try await provider.generateImage(pinned)
            let record = try await work.write(image.png, key: contentKey, fileExtension: "png", mimeType: "image/png")
            let row = GeneratedContent(mimeType: "image/png", contentKey: contentKey.description, provider: id, model: image.model,
                                       filePath: record.path, sizeBytes: record.size, sha256: record.sha256, jobID: context.jobID)
            let usage = UsageEntry(jobID: context.jobID, productionID: context.productionID, provider: id, model: image.model,
                                   capability: "image", characters: request.prompt.count, images: 1)
            let result = GenerateImageJob.Result(provider: id, model: image.model, contentID: row.id, contentKey: row.contentKey,
                                                 path: record.path, sha256: record.sha256, sizeBytes: record.size,
                                                 revisedPrompt: image.revisedPrompt, reused: false, failures: [])
            return (row, usage, result)
        }, failures: \.failures)
    }
}
