import Foundation

/// Errors a handler can throw to steer retries, and errors the runtime records.
public enum JobError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A failure no retry can fix: the job goes straight to `dead`.
    case permanent(String)
    /// The parameters do not decode into the kind's type.
    case invalidParameters(kind: String, reason: String)
    /// One parameter decodes but is refused: out of its documented range, not finite, too many
    /// elements (`field` is its key path, e.g. `items.[0].options.speed`). The job goes straight
    /// to `dead`: no retry changes the parameters.
    case invalidParameter(kind: String, field: String, reason: String)
    /// No handler for this kind on the worker that received it.
    case unknownKind(String)
    /// The attempt ran longer than the kind's timeout.
    case timedOut(seconds: Double)
    /// The job's production was cancelled while it ran.
    case cancelled
    /// Not now: run again at the instant (a provider's 429 with `Retry-After`). The job is
    /// rescheduled without counting a failed attempt, and its limit is blocked until then.
    case retryAt(Date, reason: String)
    /// Go on with this attempt under another limit: the job is queued again at once, the attempt
    /// not counted, and admitted under `limit` before it runs again (a fallback chain moving to
    /// its next provider goes through that provider's `provider:NAME` limit). `reason` is kept
    /// as the job's last error.
    case continueUnder(limit: String, reason: String)

    public var description: String {
        switch self {
        case .permanent(let reason): return reason
        case .invalidParameters(let kind, let reason): return "invalid parameters for job kind '\(kind)': \(reason)"
        case .invalidParameter(let kind, let field, let reason):
            return "invalid parameters for job kind '\(kind)': \(field): \(reason)"
        case .unknownKind(let kind): return "no handler for job kind '\(kind)' on this worker"
        case .timedOut(let seconds): return "timed out after \(seconds) s"
        case .cancelled: return "cancelled"
        case .retryAt(let instant, let reason): return "\(reason) (retry at \(instant.formatted(.iso8601)))"
        case .continueUnder(let limit, let reason): return "\(reason) (continued under the limit \(limit))"
        }
    }
}

/// Adopted by errors that know whether retrying can help (a provider's 429 can, a 401 cannot).
public protocol RetryableError: Error {
    var isRetryable: Bool { get }
}

extension JobError: RetryableError {
    public var isRetryable: Bool {
        switch self {
        case .timedOut, .retryAt, .continueUnder: return true
        case .permanent, .invalidParameters, .invalidParameter, .unknownKind, .cancelled: return false
        }
    }
}

/// Adopted by errors that say when the work may be tried again (a provider's 429 or 503 with
/// `Retry-After`): the job is rescheduled for that instant instead of failing an attempt.
public protocol RetryAtError: Error {
    /// The instant to try again, or nil to fail the attempt as usual.
    var retryAt: Date? { get }
}

extension JobError: RetryAtError {
    public var retryAt: Date? {
        if case .retryAt(let instant, _) = self { return instant }
        return nil
    }
}

/// Errors of the runtime itself (configuration, lookups) for producers and the CLI.
public enum RepartoError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound(what: String, id: String)
    case invalidState(String)
    case configuration(String)
    case timeout(String)

    public var description: String {
        switch self {
        case .notFound(let what, let id): return "no \(what) with id \(id)"
        case .invalidState(let message), .configuration(let message), .timeout(let message): return message
        }
    }
}
