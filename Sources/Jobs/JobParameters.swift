import Foundation

/// The typed parameters of a job kind: `Codable` for the database and the wire, with the kind's
/// name and the queue its jobs go to.
///
/// ```swift
/// struct Thumbnail: JobParameters {
///     static let kind = "thumbnail"
///     static let queue = "generate"
///     var assetPath: String
/// }
/// ```
public protocol JobParameters: Codable, Sendable {
    /// The stable name of the kind, stored with every job.
    static var kind: String { get }
    /// The queue (and so the workers) its jobs go to; `default` unless overridden.
    static var queue: String { get }
    /// The limit this job runs under when its options name none (e.g. `provider:\(provider)`
    /// for a kind whose parameters choose the provider); nil leaves it to the kind's default.
    var limitKey: String? { get }
}

extension JobParameters {
    public static var queue: String { "default" }
    public var limitKey: String? { nil }
}

/// How to enqueue one job.
public struct JobOptions: Sendable, Equatable {
    public var priority: JobPriority
    /// Attempts before the job is dead (1 = no retries).
    public var maxAttempts: Int
    /// Seconds one attempt may run; nil takes the kind's default.
    public var timeout: Double?
    /// A second enqueue with the same key returns the first job instead of a new one.
    public var idempotencyKey: String?
    /// The production (batch) this job belongs to.
    public var productionID: UUID?
    /// The production stage, for fan-in.
    public var stage: String?
    /// Do not run before this instant.
    public var runAfter: Date?
    /// The limit it runs under (``LimitSpec``), instead of its kind's default.
    public var limit: String?
    /// Its estimated cost against the limit's budget (1 when nil); the handler may report the
    /// actual cost (``JobContext/reportCost(_:)``).
    public var cost: Double?

    public init(priority: JobPriority = .normal, maxAttempts: Int = 5, timeout: Double? = nil,
                idempotencyKey: String? = nil, productionID: UUID? = nil, stage: String? = nil, runAfter: Date? = nil,
                limit: String? = nil, cost: Double? = nil) {
        (self.limit, self.cost, self.priority, self.maxAttempts, self.timeout, self.idempotencyKey, self.productionID,
         self.stage, self.runAfter) =
            (limit, cost, priority, maxAttempts, timeout, idempotencyKey, productionID, stage, runAfter)
    }
}

/// One job to enqueue, with its parameters already encoded as JSON.
public struct JobRequest: Sendable, Equatable {
    public var id: UUID
    public var kind: String
    public var queue: String
    public var parameters: Data
    public var options: JobOptions

    /// A request for a typed job.
    public init<P: JobParameters>(_ parameters: P, options: JobOptions = JobOptions(), id: UUID = .timeOrdered()) throws {
        var options = options
        if options.limit == nil { options.limit = parameters.limitKey }
        self.init(kind: P.kind, queue: P.queue, parameters: try JSONEncoder.jobs.encode(parameters), options: options, id: id)
    }

    /// A request for a kind known only by name (the CLI's `enqueue`), parameters as JSON.
    public init(kind: String, queue: String, parameters: Data, options: JobOptions = JobOptions(), id: UUID = .timeOrdered()) {
        (self.id, self.kind, self.queue, self.parameters, self.options) = (id, kind, queue, parameters, options)
    }
}

extension JSONEncoder {
    /// The encoder for job parameters and results: sorted keys, so equal values give equal bytes.
    static var jobs: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

extension JSONDecoder {
    static var jobs: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
