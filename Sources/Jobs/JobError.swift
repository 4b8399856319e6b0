/// Errors a handler can throw to steer retries, and errors the runtime records.
public enum JobError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A failure no retry can fix: the job goes straight to `dead`.
    case permanent(String)
    /// The parameters do not decode into the kind's type.
    case invalidParameters(kind: String, reason: String)
    /// No handler for this kind on the worker that received it.
    case unknownKind(String)
    /// The attempt ran longer than the kind's timeout.
    case timedOut(seconds: Double)
    /// The job's production was cancelled while it ran.
    case cancelled

    public var description: String {
        switch self {
        case .permanent(let reason): return reason
        case .invalidParameters(let kind, let reason): return "invalid parameters for job kind '\(kind)': \(reason)"
        case .unknownKind(let kind): return "no handler for job kind '\(kind)' on this worker"
        case .timedOut(let seconds): return "timed out after \(seconds) s"
        case .cancelled: return "cancelled"
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
        case .timedOut: return true
        case .permanent, .invalidParameters, .unknownKind, .cancelled: return false
        }
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
