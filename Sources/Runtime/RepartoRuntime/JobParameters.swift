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
    public static var jobs: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

extension JSONDecoder {
    /// The decoder for job parameters and results (dates in ISO 8601).
    public static var jobs: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// Decode-time checks for job parameters: a value out of its documented range fails decoding
/// with `DecodingError.dataCorrupted` at its key path, which the registry turns into
/// ``JobError/invalidParameter(kind:field:reason:)``, so the job ends `dead` before its handler runs.
///
/// ```swift
/// seconds = try container.decode(Double.self, forKey: .seconds, in: 0...86_400)
/// ```
extension KeyedDecodingContainer {
    /// A finite number in `range`.
    public func decode(_ type: Double.Type, forKey key: Key, in range: ClosedRange<Double>) throws -> Double {
        try ParameterRange.check(decode(Double.self, forKey: key), in: range, key: key, container: self)
    }

    /// A finite number in `range`, or nil when the key is absent or null.
    public func decodeIfPresent(_ type: Double.Type, forKey key: Key, in range: ClosedRange<Double>) throws -> Double? {
        try decodeIfPresent(Double.self, forKey: key).map { try ParameterRange.check($0, in: range, key: key, container: self) }
    }

    /// An integer in `range`.
    public func decode(_ type: Int.Type, forKey key: Key, in range: ClosedRange<Int>) throws -> Int {
        try ParameterRange.check(ParameterRange.atKey(key, in: self) { try decode(Int.self, forKey: key) },
                                 in: range, key: key, container: self)
    }

    /// An integer in `range`, or nil when the key is absent or null.
    public func decodeIfPresent(_ type: Int.Type, forKey key: Key, in range: ClosedRange<Int>) throws -> Int? {
        try ParameterRange.atKey(key, in: self) { try decodeIfPresent(Int.self, forKey: key) }
            .map { try ParameterRange.check($0, in: range, key: key, container: self) }
    }

    /// An array whose element count is in `count`.
    public func decode<Element: Decodable>(_ type: [Element].Type, forKey key: Key, count: ClosedRange<Int>) throws -> [Element] {
        let elements = try decode([Element].self, forKey: key)
        guard count.contains(elements.count) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "must hold between \(count.lowerBound) and \(count.upperBound) elements, not \(elements.count)")
        }
        return elements
    }
}

/// The messages of the range checks above.
enum ParameterRange {
    static func check<Key: CodingKey>(_ value: Double, in range: ClosedRange<Double>, key: Key,
                                      container: KeyedDecodingContainer<Key>) throws -> Double {
        guard value.isFinite, range.contains(value) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "must be between \(text(range.lowerBound)) and \(text(range.upperBound)), not \(text(value))")
        }
        return value
    }

    static func check<Key: CodingKey>(_ value: Int, in range: ClosedRange<Int>, key: Key,
                                      container: KeyedDecodingContainer<Key>) throws -> Int {
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "must be between \(range.lowerBound) and \(range.upperBound), not \(value)")
        }
        return value
    }

    /// Runs `decode`, giving a number that fits no `Int` the key it was read at: Foundation
    /// throws its own internal error there (`1e308`), reported as invalid JSON with no path.
    static func atKey<Key: CodingKey, T>(_ key: Key, in container: KeyedDecodingContainer<Key>,
                                         _ decode: () throws -> T) throws -> T {
        do {
            return try decode()
        } catch let error as DecodingError {
            guard case .dataCorrupted(let context) = error, context.codingPath.isEmpty else { throw error }
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "must be a whole number that fits 64 bits")
        } catch {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "must be a whole number that fits 64 bits")
        }
    }

    /// Whole numbers without a fraction (`86400`, not `86400.0`).
    static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
