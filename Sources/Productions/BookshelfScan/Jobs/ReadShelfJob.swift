import Assets
import Crypto
import Foundation
import Generation
import Postgres
import Providers
import RepartoRuntime
import Speech
import Threading

/// `bookshelf-scan.read`: one photo read by a vision model, under the provider's limit
/// (`provider:ID`): the photo made upright and scaled, sent with the spines' JSON Schema, the
/// answer checked, and asked again once with what was wrong. The same image read before by the
/// same provider, model and prompt is reused (no call). The spines and the usage are recorded
/// with the job's success.
public struct ReadShelfJob: JobParameters {
    public static let kind = "bookshelf-scan.read"
    public static let queue = "generate"
    public static let timeout: Double = 600

    public var productionID: UUID
    public var photo: Int
    public var visionProvider: String
    public var model: String?
    public var fresh: Bool?

    public var limitKey: String? { "provider:\(visionProvider)" }

    public init(productionID: UUID, photo: Int, visionProvider: String, model: String?, fresh: Bool?) {
        (self.productionID, self.photo, self.visionProvider, self.model, self.fresh) = (productionID, photo, visionProvider, model, fresh)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        productionID = try container.decode(UUID.self, forKey: .productionID)
        photo = try container.decode(Int.self, forKey: .photo, in: 0...(BookshelfScanClient.maxPhotos - 1))
        visionProvider = try container.decode(String.self, forKey: .visionProvider)
        model = try container.decodeIfPresent(String.self, forKey: .model)
        fresh = try container.decodeIfPresent(Bool.self, forKey: .fresh)
    }

    /// What a read job returns.
    public struct Result: Codable, Sendable, Hashable {
        public var spines: Int
        public var reused: Bool
        public var model: String
        /// 2 when the first answer did not validate and the model was asked again.
        public var calls: Int
    }

    /// The content key of a reading: the image, the provider, the model and the prompt's version.
    static func readKey(sha256: String, provider: String, model: String) -> String {
        let text = [sha256, provider, model, ShelfReading.promptVersion].joined(separator: "\n")
        return "vision:" + SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// The work of `bookshelf-scan.read`, apart from registration so tests can give it providers.
struct ShelfReader: Sendable {
    var providers: GenerationProviderRegistry
    var assetsRoot: URL
    var postgres: PostgresClient?
    var normalizer: PhotoNormalizer?

    func run(_ job: ReadShelfJob, context: JobContext) async throws -> ReadShelfJob.Result {
        guard let postgres else { throw JobError.permanent("\(ReadShelfJob.kind) needs the database (this process has none)") }
        let production = job.productionID, index = job.photo
        guard let photo = try await postgres.withConnection({ try ScanRows.photo(production, photo: index, on: $0) }) else {
            throw JobError.permanent("\(ReadShelfJob.kind): the scan has no photo \(index)")
        }
        let provider: any VisionProvider
        do { provider = try providers.visionProvider(job.visionProvider) } catch { throw JobError.permanent("\(ReadShelfJob.kind): \(error)") }
        let model = job.model ?? provider.defaultModels[.vision] ?? "default"
        let key = ReadShelfJob.readKey(sha256: photo.sha256, provider: provider.id, model: model)
        if job.fresh != true, let earlier = try await postgres.withConnection({ try ScanRows.reading(key, on: $0) }) {
            context.transactional { connection in
                try ScanRows.setRead(production, photo: index, spines: earlier.spines, reused: true, model: earlier.model,
                                     provider: provider.id, key: key, on: connection)
                try GenerationRows.insertUsage(UsageEntry(jobID: context.jobID, productionID: production, provider: provider.id,
                                                          model: earlier.model, capability: "vision", images: 1, reused: true), on: connection)
            }
            return ReadShelfJob.Result(spines: earlier.spines.count, reused: true, model: earlier.model, calls: 0)
        }
        let image = try await uprightImage(photo)
        var request = VisionRequest(system: ShelfReading.system, prompt: ShelfReading.prompt,
                                    images: [VisionImage(mediaType: "image/jpeg", data: image)],
                                    schemaName: ShelfReading.schemaName, schema: ShelfReading.schema, model: job.model)
        var usage: [UsageEntry] = []
        var spines: [ShelfSpine]?
        var answered = model
        for call in 1...2 where spines == nil {
            let answer: VisionAnswer
            do {
                answer = try await provider.describeImages(request)
            } catch .malformedResponse(_, let reason, let body) {
                // Not even JSON: an answer that does not validate like any other.
                guard call == 1 else { throw JobError.permanent("\(ReadShelfJob.kind): the answer did not validate twice: \(reason)") }
                context.logger.warning("vision answer was not JSON; asking again", metadata: ["error": "\(reason)"])
                request.correction = VisionCorrection(answer: String(body.prefix(4000)), error: reason)
                continue
            } catch {
                throw Self.jobError(for: error)
            }
            answered = answer.model
            usage.append(UsageEntry(jobID: context.jobID, productionID: production, provider: provider.id, model: answer.model,
                                    capability: "vision", inputTokens: answer.inputTokens ?? 0, outputTokens: answer.outputTokens ?? 0,
                                    characters: ShelfReading.prompt.count, images: 1))
            do {
                spines = try ShelfReading.spines(from: answer.json)
            } catch {
                guard call == 1 else {
                    throw JobError.permanent("\(ReadShelfJob.kind): the answer did not validate twice: \(error)")
                }
                context.logger.warning("vision answer did not validate; asking again", metadata: ["error": "\(error)"])
                request.correction = VisionCorrection(answer: String(decoding: answer.json.prefix(4000), as: UTF8.self), error: error.description)
            }
        }
        let read = spines ?? []
        let (recorded, calls, answeredBy) = (usage, usage.count, answered)
        context.reportCost(Double(calls))
        context.transactional { connection in
            try ScanRows.setRead(production, photo: index, spines: read, reused: false, model: answeredBy, provider: provider.id,
                                 key: key, on: connection)
            for entry in recorded { try GenerationRows.insertUsage(entry, on: connection) }
        }
        return ReadShelfJob.Result(spines: read.count, reused: false, model: answeredBy, calls: calls)
    }

    /// The photo's bytes made upright and scaled (ffmpeg), or the stored bytes as they are when
    /// this process has no ffmpeg and the photo needs neither.
    private func uprightImage(_ photo: ScanRows.Photo) async throws -> Data {
        let root = assetsRoot, normalizer = self.normalizer
        return try await BlockingWork.run { () throws -> Data in
            let store = try AssetStore(root: root)
            let file = URL(fileURLWithPath: try store.absolutePath(photo.path))
            let header: [UInt8]
            do {
                let handle = try FileHandle(forReadingFrom: file)
                defer { try? handle.close() }
                header = Array(try handle.read(upToCount: 1 << 20) ?? Data())
            } catch {
                throw JobError.permanent("\(ReadShelfJob.kind): \(photo.path): \(error.localizedDescription)")
            }
            let inspected: PhotoFile
            do { inspected = try PhotoFile.inspect(header, name: photo.sourceName) } catch { throw JobError.permanent("\(error)") }
            guard let normalizer else { throw JobError.permanent("\(ReadShelfJob.kind): ffmpeg is not installed on this worker") }
            do { return try normalizer.upright(file, photo: inspected, name: photo.sourceName) } catch {
                throw JobError.permanent("\(error)")
            }
        }
    }

    /// A failure with Retry-After becomes "retry at" (no attempt spent, the provider's limit held
    /// back until then); a refusal or a bad request is permanent; others are retried with backoff.
    static func jobError(for error: ProviderError) -> any Error {
        if let after = error.retryAfter { return JobError.retryAt(Date().addingTimeInterval(max(0, min(after, 86_400))), reason: "\(error)") }
        return error.isRetryable ? error : JobError.permanent("\(error)")
    }
}

