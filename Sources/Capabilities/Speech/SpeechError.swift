import Foundation

/// Everything that can go wrong when turning text into speech, typed so callers (and the job
/// runtime's retry policy) can decide whether to try again.
///
/// Descriptions never contain API keys, request bodies or the text being spoken.
public enum SpeechError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is empty or only whitespace.
    case emptyText
    /// The text is longer than the configured limit (characters).
    case textTooLong(length: Int, limit: Int)
    /// No provider with this id is registered.
    case unknownProvider(String)
    /// The provider has no voice with this id.
    case unknownVoice(String, provider: String)
    /// An operator disabled the provider for this deployment (`reparto voices providers disable ID`).
    case providerDisabled(String)
    /// The provider cannot be used yet (for example its API key is missing); `hint` says what to set.
    case notConfigured(provider: String, hint: String)
    /// HTTP 429: the provider asks us to slow down; `retryAfter` comes from the Retry-After header.
    case rateLimited(provider: String, retryAfter: TimeInterval?)
    /// HTTP 401/403: the API key is missing, wrong or lacks permission.
    case unauthorized(provider: String, status: Int)
    /// Any other HTTP 4xx: the request itself is wrong (`message` is the provider's short explanation, if any).
    case rejected(provider: String, status: Int, message: String?)
    /// HTTP 5xx: the provider failed.
    case serverError(provider: String, status: Int)
    /// No complete answer within the deadline.
    case timeout(provider: String)
    /// The connection failed before an HTTP answer arrived.
    case connectionFailed(provider: String, reason: String)
    /// The response body ended before it was complete.
    case truncatedResponse(provider: String, expected: Int?, received: Int)
    /// The provider answered with something that is not the audio it promised.
    case invalidAudio(provider: String, reason: String)
    /// Audio parts cannot be joined (different channel counts, or resampling disallowed).
    case formatMismatch(reason: String)
    /// The local engine (espeak-ng) could not be started.
    case engineNotFound(path: String)
    /// The local engine exited with an error; `message` is the first line of its stderr.
    case engineFailed(provider: String, exitCode: Int32, message: String)
    /// The engine's library (libespeak-ng) reported an error; `message` is its own explanation.
    case engineError(provider: String, message: String)
    /// A cast file or cast override is not valid.
    case invalidCast(reason: String)
    /// A pronunciation lexicon is not valid (``PronunciationLexicon``).
    case invalidLexicon(reason: String)
    /// A voice file (a Piper `.onnx` model or its `.onnx.json` config) is missing, truncated or not
    /// a voice; `path` names the file at fault.
    case invalidVoiceFile(path: String, reason: String)

    /// True when trying the same request again later may succeed.
    public var isRetryable: Bool {
        switch self {
        case .rateLimited, .serverError, .timeout, .connectionFailed, .truncatedResponse: return true
        default: return false
        }
    }

    /// How long the provider asked us to wait, when it said so (429 with Retry-After).
    public var retryAfter: TimeInterval? {
        if case .rateLimited(_, let after) = self { return after }
        return nil
    }

    public var description: String {
        switch self {
        case .emptyText: return "nothing to say: the text is empty"
        case .textTooLong(let length, let limit): return "text too long: \(length) characters, limit is \(limit)"
        case .unknownProvider(let id): return "unknown voice provider '\(id)'"
        case .unknownVoice(let voice, let provider): return "unknown voice '\(voice)' for provider \(provider)"
        case .providerDisabled(let id):
            return "voice provider '\(id)' is disabled by an operator (reparto voices providers enable \(id))"
        case .notConfigured(let provider, let hint): return "provider \(provider) is not configured: \(hint)"
        case .rateLimited(let provider, let after):
            return "provider \(provider) is rate limiting requests" + (after.map { ", retry after \(Int(exactly: $0.rounded(.up)).map(String.init) ?? "\($0)") s" } ?? "")
        case .unauthorized(let provider, let status): return "provider \(provider) refused the API key (HTTP \(status))"
        case .rejected(let provider, let status, let message):
            return "provider \(provider) rejected the request (HTTP \(status))" + (message.map { ": \($0)" } ?? "")
        case .serverError(let provider, let status): return "provider \(provider) failed (HTTP \(status))"
        case .timeout(let provider): return "provider \(provider) did not answer in time"
        case .connectionFailed(let provider, let reason): return "could not reach provider \(provider): \(reason)"
        case .truncatedResponse(let provider, let expected, let received):
            return "provider \(provider) sent an incomplete response (\(received) bytes" + (expected.map { " of \($0)" } ?? "") + ")"
        case .invalidAudio(let provider, let reason): return "provider \(provider) returned invalid audio: \(reason)"
        case .formatMismatch(let reason): return "audio formats do not match: \(reason)"
        case .engineNotFound(let path): return "speech engine not found: \(path)"
        case .engineFailed(let provider, let code, let message):
            return "\(provider) exited with status \(code)" + (message.isEmpty ? "" : ": \(message)")
        case .engineError(let provider, let message): return "\(provider) failed: \(message)"
        case .invalidCast(let reason): return "invalid cast: \(reason)"
        case .invalidLexicon(let reason): return "invalid pronunciation lexicon: \(reason)"
        case .invalidVoiceFile(let path, let reason): return "voice file \(path): \(reason)"
        }
    }
}
