import Assets
import Foundation
import RepartoRuntime
import Providers

/// A generation job whose parameters name a fallback chain (`providers`): it runs under the
/// first provider's limit (`provider:NAME`) unless its options name another.
public protocol ProviderChainJob: JobParameters {
    /// The fallback chain, tried in order.
    var providers: [String] { get }
}

extension ProviderChainJob {
    /// `provider:NAME` of the chain's first provider.
    public var limitKey: String? { providers.first.map(ProviderChainRunner.limitKey) }
}

/// How long a fallback chain may be: one to 16 providers.
public let providerChainLength = 1...16

/// A request that one `speech.synthesize` job answers with one result: `text.generate`'s
/// ``TextGenerationRequest``, `image.generate`'s ``ImageRequest``.
public protocol SingleResultRequest: Codable, Sendable, Hashable {
    /// What the job returns.
    associatedtype JobResult: Codable, Sendable, Hashable
    /// The job kind (`text.generate`, `image.generate`).
    static var jobKind: String { get }
    /// Throws when the request cannot be sent (checked when the job's parameters decode).
    func validate() throws(ProviderError)
}

/// The parameters of `text.generate` and `image.generate` (``GenerateTextJob``,
/// ``GenerateImageJob``): a fallback chain, one request, and whether to ask even when a stored
/// answer exists. On the `generate` queue, 600 s an attempt (every provider of the chain included).
///
/// ```swift
/// try await client.enqueue(GenerateTextJob(providers: ["anthropic", "openai"],
///                                          request: TextGenerationRequest(prompt: "A logline for …")))
/// ```
public struct SingleResultJob<Request: SingleResultRequest>: ProviderChainJob {
    public static var kind: String { Request.jobKind }
    /// `generate`: the queue of generation workers.
    public static var queue: String { "generate" }
    /// Seconds one attempt may run (every provider of the chain included).
    public static var timeout: Double { 600 }

    /// The fallback chain, tried in order.
    public var providers: [String]
    public var request: Request
    /// True: ask the provider even when a stored answer exists (and replace it).
    public var fresh: Bool?

    public init(providers: [String], request: Request, fresh: Bool = false) {
        (self.providers, self.request, self.fresh) = (providers, request, fresh ? true : nil)
    }

    private enum CodingKeys: String, CodingKey {
        case providers, request, fresh
    }

    /// Refuses a chain of no or more than 16 providers and a request that cannot be sent
    /// (``JobError/invalidParameter(kind:field:reason:)``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        providers = try container.decode([String].self, forKey: .providers, count: providerChainLength)
        request = try container.decode(Request.self, forKey: .request)
        fresh = try container.decodeIfPresent(Bool.self, forKey: .fresh)
        do { try request.validate() } catch {
            throw DecodingError.dataCorruptedError(forKey: .request, in: container, debugDescription: error.description)
        }
    }

    /// What the job returns.
    public typealias Result = Request.JobResult
}

/// What `text.generate` and `image.generate` share: one request along a fallback chain, each
/// provider's stored answer reused unless `fresh`, a new answer's row and ledger line committed
/// with the job's success, the chain's failures on the result.
struct SingleResultGeneration: Sendable {
    let storage: GenerationStorage
    let chain: ProviderChainRunner

    /// One provider's turn: a stored row to reuse, or a new answer to record.
    enum Turn<Result: Sendable>: Sendable {
        /// The provider's stored answer, complete on the volume.
        case reuse(GeneratedContent)
        /// A fresh answer: its row and ledger line (committed with the job), and the result.
        case made(GeneratedContent, UsageEntry, Result)
    }

    /// Runs the chain: for each provider, `key` gives its content key; a stored complete row with
    /// that key answers through `reused` (with a `reused` ledger line) unless `fresh`, else `make`
    /// asks the provider. Returns the result with the failures of the providers before it.
    func run<Result: Sendable>(_ providers: [String], capability: ProviderCapability, fresh: Bool, context: JobContext,
                               key: (String) throws -> ContentKey,
                               reused: (String, GeneratedContent) -> Result,
                               make: (String, ContentKey) async throws -> (GeneratedContent, UsageEntry, Result),
                               failures: WritableKeyPath<Result, [String]>) async throws -> Result {
        let answer = try await chain.run(providers, context: context) { id -> Result in
            let contentKey = try key(id)
            let text = contentKey.description
            if !fresh, let stored = try await storage.lookup([text])[text], try await storage.isComplete(stored) {
                record(nil, UsageEntry(jobID: context.jobID, productionID: context.productionID, provider: id, model: stored.model,
                                       capability: capability.rawValue, reused: true), context: context)
                return reused(id, stored)
            }
            let (row, usage, result) = try await make(id, contentKey)
            record(row, usage, context: context)
            return result
        }
        var result = answer.value
        result[keyPath: failures] = answer.failures
        return result
    }

    /// Writes `bytes` to the volume at the content key's path (atomically, with its checksum).
    func write(_ bytes: Data, key: ContentKey, fileExtension: String, mimeType: String) async throws -> AssetRecord {
        let store = try await storage.store()
        return try await store.write(bytes, to: key.relativePath(fileExtension: fileExtension), mimeType: mimeType)
    }

    /// Counts the ledger line now and commits it (with the row, if any) with the job's success.
    func record(_ row: GeneratedContent?, _ usage: UsageEntry, context: JobContext) {
        UsageMetrics.record(usage)
        context.transactional { connection in
            if let row { try GenerationRows.upsert(row, on: connection) }
            try GenerationRows.insertUsage(usage, on: connection)
        }
    }
}
