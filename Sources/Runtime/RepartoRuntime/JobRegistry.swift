import Foundation
import Synchronization

/// A job request that names no registered kind or carries no JSON object, in one line.
public struct JobRequestError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// One registered job kind: its name, queue, limits and type-erased handler.
public struct JobKindDefinition: Sendable {
    public let kind: String
    public let queue: String
    /// Seconds one attempt may run.
    public let timeout: Double
    public let retryPolicy: RetryPolicy
    /// The limit its jobs run under when they name none (e.g. `provider:openai`).
    public let limit: String?
    /// How many times in a row a job of this kind may be running on a worker that dies (a trap in
    /// a C library, the OOM killer) before the rescue makes it dead instead of running it again.
    public let crashLimit: Int
    let decode: @Sendable (Data) throws -> Void
    let run: @Sendable (Data, JobContext) async throws -> Data?

    /// Throws ``JobError/invalidParameters(kind:reason:)`` when `json` does not decode as this kind's parameters.
    public func validate(parameters json: Data) throws {
        try decode(json)
    }
}

/// The job kinds a worker can run. Users register their own kinds next to the built-in ones.
///
/// ```swift
/// let registry = JobRegistry.withBuiltins()
/// registry.register(Thumbnail.self, timeout: 30) { params, context in
///     try await render(params.assetPath)
///     return ThumbnailResult(width: 320)
/// }
/// ```
public final class JobRegistry: Sendable {
    private let kinds = Mutex<[String: JobKindDefinition]>([:])
    private let startHooks = Mutex<[@Sendable () async -> Void]>([])
    private let formerNames = Mutex<[String: String]>([:])

    /// Runs `hook` each time a worker with this registry starts running (after it reached its
    /// database, before it takes its first job), e.g. to record what the kinds need in shared
    /// tables: what the worker's jobs then write there (a provider marked unconfigured by a
    /// refused key) is not overwritten by its own start. Registering has no side effect of its
    /// own: nothing connects before a worker runs.
    public func onWorkerStart(_ hook: @escaping @Sendable () async -> Void) {
        startHooks.withLock { $0.append(hook) }
    }

    /// The hooks registered with ``onWorkerStart(_:)``, in order.
    var workerStartHooks: [@Sendable () async -> Void] { startHooks.withLock { $0 } }

    public init() {}

    /// A registry with the built-in `noop`, `sleep` and `fail` kinds.
    public static func withBuiltins() -> JobRegistry {
        let registry = JobRegistry()
        BuiltinJobs.register(in: registry)
        return registry
    }

    /// Registers a kind whose handler returns an encodable result (stored as the job's result).
    public func register<P: JobParameters, R: Encodable & Sendable>(
        _ type: P.Type, timeout: Double = 300, retryPolicy: RetryPolicy = RetryPolicy(), limit: String? = nil,
        crashLimit: Int = JobLifecycle.defaultCrashLimit,
        handler: @escaping @Sendable (P, JobContext) async throws -> R
    ) {
        let decode: @Sendable (Data) throws -> P = { data in
            do {
                return try JSONDecoder.jobs.decode(P.self, from: data)
            } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
                // A value the type refused (out of range, too many elements): name its field.
                throw JobError.invalidParameter(kind: P.kind, field: DecodingErrorText.path(context.codingPath),
                                                reason: context.debugDescription)
            } catch {
                throw JobError.invalidParameters(kind: P.kind, reason: DecodingErrorText.describe(error))
            }
        }
        let definition = JobKindDefinition(kind: P.kind, queue: P.queue, timeout: timeout, retryPolicy: retryPolicy,
                                           limit: limit, crashLimit: max(1, crashLimit), decode: { _ = try decode($0) }) { data, context in
            let parameters = try decode(data)
            let result = try await handler(parameters, context)
            if result is EmptyResult { return nil }
            return try JSONEncoder.jobs.encode(result)
        }
        kinds.withLock { $0[P.kind] = definition }
    }

    /// Registers a kind whose handler returns nothing.
    public func register<P: JobParameters>(
        _ type: P.Type, timeout: Double = 300, retryPolicy: RetryPolicy = RetryPolicy(), limit: String? = nil,
        crashLimit: Int = JobLifecycle.defaultCrashLimit,
        handler: @escaping @Sendable (P, JobContext) async throws -> Void
    ) {
        register(type, timeout: timeout, retryPolicy: retryPolicy, limit: limit, crashLimit: crashLimit) { (parameters: P, context: JobContext) -> EmptyResult in
            try await handler(parameters, context)
            return EmptyResult()
        }
    }

    /// The definition of `kind`, or of the kind it was renamed to (``alias(_:)``).
    public func definition(for kind: String) -> JobKindDefinition? {
        kinds.withLock { $0[kind] } ?? formerNames.withLock { $0[kind] }.flatMap { new in kinds.withLock { $0[new] } }
    }

    /// Accepts jobs stored under a kind's former name (old name → new name), so work enqueued by
    /// an older producer still runs after a rename; the database's rows are renamed by migration.
    public func alias(_ renamed: [String: String]) {
        formerNames.withLock { $0.merge(renamed) { _, new in new } }
    }

    /// The definition of `kind`, with `parameters` (JSON text, e.g. from a command line) checked
    /// against its parameter type; returns the definition and the parameters' bytes.
    /// - Throws: ``JobRequestError`` for an unknown kind or text that is not a JSON object;
    ///   ``JobError/invalidParameters(kind:reason:)`` when it does not decode.
    public func checked(kind: String, parameters: String) throws -> (definition: JobKindDefinition, parameters: Data) {
        guard let definition = definition(for: kind) else {
            throw JobRequestError(description: "unknown job kind '\(kind)'; known kinds: \(definitions.map(\.kind).joined(separator: ", "))")
        }
        let json = Data(parameters.utf8)
        guard (try? JSONSerialization.jsonObject(with: json)) is [String: Any] else {
            throw JobRequestError(description: "--params is not a JSON object: \(parameters.prefix(80))")
        }
        try definition.validate(parameters: json)
        return (definition, json)
    }

    /// Every registered kind, sorted by name.
    public var definitions: [JobKindDefinition] { kinds.withLock { Array($0.values) }.sorted { $0.kind < $1.kind } }

    /// Kind → default limit, for the kinds that declare one.
    public var defaultLimits: [String: String] {
        Dictionary(uniqueKeysWithValues: definitions.compactMap { definition in definition.limit.map { (definition.kind, $0) } })
    }

    /// The queues the registered kinds use.
    public var queues: [String] { Array(Set(definitions.map(\.queue))).sorted() }

}

struct EmptyResult: Codable, Sendable {}

enum DecodingErrorText {
    /// `items.[0].options.speed`, or `top level`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        let keys = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
        return keys.isEmpty ? "top level" : keys.joined(separator: ".")
    }

    /// A one-line reason, naming the offending key path.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String { Self.path(context.codingPath) }
        switch error {
        case .keyNotFound(let key, let context): return "missing key '\(key.stringValue)' at \(path(context))"
        case .typeMismatch(let type, let context): return "expected \(type) at \(path(context))"
        case .valueNotFound(let type, let context): return "missing \(type) value at \(path(context))"
        case .dataCorrupted(let context): return "\(context.debugDescription) at \(path(context))"
        @unknown default: return "\(error)"
        }
    }
}
