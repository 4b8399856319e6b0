import Foundation

/// Everything that can go wrong when a generation provider is asked for text, embeddings or an
/// image, typed so that the job runtime can decide: retry later, retry at an instant, or give up
/// (and, in a fallback chain, move to the next provider).
///
/// Descriptions never contain API keys, prompts or generated content; a malformed body's first
/// bytes are kept (at most ``ProviderError/bodyPrefixLimit`` characters) because they are what an
/// operator needs to see what the provider sent instead of JSON.
public enum ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No provider with this id is known.
    case unknownProvider(String)
    /// The provider cannot do this (an Anthropic embedding, say).
    case unsupported(provider: String, capability: ProviderCapability)
    /// The provider cannot be used yet; `hint` names the variable to set.
    case notConfigured(provider: String, hint: String)
    /// An operator disabled the provider (`reparto providers disable ID`).
    case disabled(provider: String)
    /// The request cannot be sent as it is (empty prompt, no texts); nothing was sent.
    case invalidRequest(reason: String)
    /// HTTP 401/403: the key is missing, wrong or lacks permission. Permanent.
    case unauthorized(provider: String, status: Int, message: String?)
    /// HTTP 429: slow down; `retryAfter` (seconds) from `Retry-After` or `retry-after-ms`.
    case rateLimited(provider: String, retryAfter: TimeInterval?)
    /// The account has no quota or credit left (OpenAI's 429 `insufficient_quota`, Anthropic's
    /// spend limit). Permanent: waiting a minute does not help.
    case quotaExhausted(provider: String, message: String?)
    /// The provider refused the content (a content-policy violation, a `content_filter` or
    /// `refusal` finish). Permanent; `reason` is the provider's own explanation.
    case refused(provider: String, reason: String)
    /// Any other HTTP 4xx: the request itself is wrong. Permanent.
    case rejected(provider: String, status: Int, message: String?)
    /// HTTP 5xx (and Anthropic's 529 overloaded): the provider failed. Retryable; `retryAfter`
    /// when the provider sent one.
    case serverError(provider: String, status: Int, retryAfter: TimeInterval?)
    /// No complete answer within the deadline. Retryable.
    case timeout(provider: String)
    /// The connection failed before an answer. Retryable.
    case connectionFailed(provider: String, reason: String)
    /// The body ended before it was complete. Retryable.
    case truncatedResponse(provider: String, expected: Int?, received: Int)
    /// The answer is not the JSON the API documents; `bodyPrefix` is its beginning. Retryable
    /// (a proxy's HTML error page, a half-written answer), dead after the job's attempts.
    case malformedResponse(provider: String, reason: String, bodyPrefix: String)

    /// The most characters of a malformed body kept in the error.
    public static let bodyPrefixLimit = 200

    /// True when the same request may succeed later from the same provider.
    public var isRetryable: Bool {
        switch self {
        case .rateLimited, .serverError, .timeout, .connectionFailed, .truncatedResponse, .malformedResponse: return true
        default: return false
        }
    }

    /// The seconds the provider asked us to wait, when it said so.
    public var retryAfter: TimeInterval? {
        switch self {
        case .rateLimited(_, let after), .serverError(_, _, let after): return after
        default: return nil
        }
    }

    /// True when the provider's key is the problem: the provider should be shown as unconfigured.
    public var isAuthenticationFailure: Bool {
        if case .unauthorized = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .unknownProvider(let id): return "unknown provider '\(id)'"
        case .unsupported(let provider, .vision): return "provider \(provider) cannot answer about images (vision)"
        case .unsupported(let provider, let capability): return "provider \(provider) cannot generate \(capability.rawValue)"
        case .notConfigured(let provider, let hint): return "provider \(provider) is not configured: \(hint)"
        case .disabled(let provider): return "provider '\(provider)' is disabled by an operator (reparto providers enable \(provider))"
        case .invalidRequest(let reason): return "invalid request: \(reason)"
        case .unauthorized(let provider, let status, let message):
            return "provider \(provider) refused the API key (HTTP \(status))" + (message.map { ": \($0)" } ?? "")
        case .rateLimited(let provider, let after):
            return "provider \(provider) is rate limiting requests" + (after.map { ", retry after \(Int(exactly: $0.rounded(.up)).map(String.init) ?? "\($0)") s" } ?? "")
        case .quotaExhausted(let provider, let message):
            return "provider \(provider) has no quota left" + (message.map { ": \($0)" } ?? "")
        case .refused(let provider, let reason): return "provider \(provider) refused the content: \(reason)"
        case .rejected(let provider, let status, let message):
            return "provider \(provider) rejected the request (HTTP \(status))" + (message.map { ": \($0)" } ?? "")
        case .serverError(let provider, let status, let after):
            return "provider \(provider) failed (HTTP \(status))" + (after.map { ", retry after \(Int(exactly: $0.rounded(.up)).map(String.init) ?? "\($0)") s" } ?? "")
        case .timeout(let provider): return "provider \(provider) did not answer in time"
        case .connectionFailed(let provider, let reason): return "could not reach provider \(provider): \(reason)"
        case .truncatedResponse(let provider, let expected, let received):
            return "provider \(provider) sent an incomplete response (\(received) bytes" + (expected.map { " of \($0)" } ?? "") + ")"
        case .malformedResponse(let provider, let reason, let prefix):
            return "provider \(provider) sent a malformed response (\(reason)); body starts: \(prefix)"
        }
    }

    /// The first bytes of a body as printable text, for ``malformedResponse(provider:reason:bodyPrefix:)``.
    public static func prefix(of body: Data) -> String {
        let text = String(decoding: body.prefix(bodyPrefixLimit * 4), as: UTF8.self)
        let printable = text.unicodeScalars.map { scalar -> String in
            if scalar == "\n" || scalar == "\r" || scalar == "\t" { return " " }
            if scalar.properties.generalCategory == .control { return "?" }
            return String(scalar)
        }.joined()
        return String(printable.prefix(bodyPrefixLimit))
    }
}
