import Foundation

/// Does nothing: for health checks and throughput benchmarks.
public struct NoopJob: JobParameters {
    public static let kind = "noop"
    public init() {}
}

/// Sleeps (cooperatively, so cancellation and timeouts stop it): for tests and latency benchmarks.
public struct SleepJob: JobParameters {
    public static let kind = "sleep"
    /// The seconds a `sleep` job may ask for: 0 to one day (a larger `Duration` would overflow).
    public static let secondsRange: ClosedRange<Double> = 0...86_400
    /// Seconds to sleep, in ``secondsRange``.
    public var seconds: Double
    public init(seconds: Double) { self.seconds = seconds }

    /// Refuses `seconds` outside ``secondsRange`` (``JobError/invalidParameter(kind:field:reason:)``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seconds = try container.decode(Double.self, forKey: .seconds, in: Self.secondsRange)
    }
}

/// Fails on purpose: for exercising retries and dead letters.
public struct FailJob: JobParameters {
    public static let kind = "fail"
    public var message: String
    /// Succeed from this attempt on (1 or more; nil: never).
    public var succeedOnAttempt: Int?
    /// Fail without retries.
    public var permanent: Bool
    public init(message: String, succeedOnAttempt: Int? = nil, permanent: Bool = false) {
        self.message = message
        self.succeedOnAttempt = succeedOnAttempt
        self.permanent = permanent
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        message = try container.decodeIfPresent(String.self, forKey: .message) ?? "deliberate failure"
        succeedOnAttempt = try container.decodeIfPresent(Int.self, forKey: .succeedOnAttempt, in: 1...Int.max)
        permanent = try container.decodeIfPresent(Bool.self, forKey: .permanent) ?? false
    }
}

/// The result of a `fail` job once it stops failing.
public struct FailJobResult: Codable, Sendable {
    public var succeededOnAttempt: Int
}

/// An error a `fail` job throws; retryable unless the job says `permanent`.
public struct DeliberateFailure: Error, RetryableError, CustomStringConvertible {
    public var message: String
    public var isRetryable: Bool
    public var description: String { message }
}

enum BuiltinJobs {
    static func register(in registry: JobRegistry) {
        registry.register(NoopJob.self, timeout: 30) { _, _ in }
        registry.register(SleepJob.self, timeout: 3600) { parameters, _ in
            // Decoding checked the range; a value built in code gets the same check here.
            guard SleepJob.secondsRange.contains(parameters.seconds) else {
                throw JobError.invalidParameter(kind: SleepJob.kind, field: "seconds", reason: "must be between 0 and 86400")
            }
            try await Task.sleep(for: .seconds(parameters.seconds))
        }
        registry.register(FailJob.self, timeout: 30, retryPolicy: RetryPolicy(base: 0.05, maximum: 1)) { parameters, context in
            if let from = parameters.succeedOnAttempt, context.attempt >= from {
                return FailJobResult(succeededOnAttempt: context.attempt)
            }
            throw DeliberateFailure(message: parameters.message, isRetryable: !parameters.permanent)
        }
    }
}
