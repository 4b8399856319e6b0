import Foundation
import HTTPExchange
import RepartoConfiguration

/// How a non-2xx answer of an OpenAI-compatible or Anthropic API becomes a ``ProviderError``.
///
/// Both APIs put a JSON error object in the body: OpenAI's `{"error":{"message","type","param","code"}}`,
/// Anthropic's `{"type":"error","error":{"type","message"}}`. Pure: unit-tested without a server.
public enum ProviderHTTPFailure {
    /// Maps a status, its headers (lower-cased names) and body to the error.
    /// - Parameter now: the instant an HTTP-date `Retry-After` is measured from.
    public static func error(provider: String, status: Int, headers: [String: String], body: Data,
                             secret: Secret?, now: Date = Date()) -> ProviderError {
        let details = ErrorDetails(body: body, secret: secret)
        let after = retryAfter(headers: headers, now: now)
        switch status {
        case 401, 403:
            return .unauthorized(provider: provider, status: status, message: details.message)
        case 429:
            if details.code == "insufficient_quota" || details.code == "enforced_spend_limit_reached" {
                return .quotaExhausted(provider: provider, message: details.message)
            }
            return .rateLimited(provider: provider, retryAfter: after)
        case 408:
            return .timeout(provider: provider)
        case 409, 500...599:
            return .serverError(provider: provider, status: status, retryAfter: after)
        default:
            if let code = details.code ?? details.type, refusalCodes.contains(code) {
                return .refused(provider: provider, reason: details.message ?? code)
            }
            return .rejected(provider: provider, status: status, message: details.message)
        }
    }

    /// Error codes that mean "the content was refused", not "the request was malformed".
    static let refusalCodes: Set<String> = ["content_policy_violation", "moderation_blocked", "content_filter"]

    /// Seconds to wait: `retry-after-ms` (OpenAI's, milliseconds), else `retry-after` as
    /// delta-seconds or an HTTP date.
    public static func retryAfter(headers: [String: String], now: Date = Date()) -> TimeInterval? {
        if let ms = headers["retry-after-ms"].flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }), ms >= 0, ms.isFinite {
            return min(ms / 1000, HTTPExchange.longestRetryAfter)
        }
        return HTTPExchange.retryAfter(headers["retry-after"], now: now)
    }

    /// The fields of either API's error object that decide what an error is.
    struct ErrorDetails {
        var message: String?
        var type: String?
        var code: String?

        init(body: Data, secret: Secret?) {
            guard let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return }
            if let error = json["error"] as? [String: Any] {
                message = error["message"] as? String
                type = error["type"] as? String
                code = (error["code"] as? String) ?? ((error["details"] as? [String: Any])?["error_code"] as? String)
            } else {
                message = (json["error"] as? String) ?? (json["message"] as? String) ?? (json["detail"] as? String)
            }
            message = message.map { String(ProviderHTTPFailure.redact($0, secret: secret).prefix(300)) }
        }
    }

    /// The text with the secret's value replaced.
    public static func redact(_ text: String, secret: Secret?) -> String {
        HTTPExchange.redact(text, secret: secret)
    }
}
