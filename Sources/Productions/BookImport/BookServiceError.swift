import Foundation
import RepartoRuntime

/// Why a book service could not answer. 429 and 503 become "retry at" (the job is rescheduled
/// without spending an attempt and the service's limit is held back until then), and so do a 403
/// from the covers service (its limit on covers looked up by ISBN) and Google Books' quota
/// errors (a 403 or 429 naming `rateLimitExceeded`, `dailyLimitExceeded`, `quotaExceeded`, …);
/// a service held back by an earlier such answer is ``held(service:until:reason:)``. Other
/// server and transport failures are retried with backoff; a malformed answer is retried too (a
/// mirror having a bad moment), up to the job's attempts.
public enum BookServiceError: Error, Sendable, Equatable, CustomStringConvertible, RetryAtError, RetryableError {
    case rateLimited(service: String, status: Int, retryAfter: Double?)
    case serverError(service: String, status: Int)
    case rejected(service: String, status: Int)
    case truncated(service: String, expected: Int?, received: Int)
    case tooLarge(service: String, limit: Int)
    case unreachable(service: String, reason: String)
    case timeout(service: String)
    /// A URL (a cover link, a redirect) that may not be fetched: not http(s), not the service's
    /// host, or a loopback or private address.
    case refusedURL(service: String, url: String, reason: String)
    /// Not asked: the service said to slow down (here or on another worker) and is held back
    /// until the instant, or its requests are queued further ahead than a job waits
    /// (see docs/books.md, "Politeness and faults").
    case held(service: String, until: Date, reason: String)

    /// When not told, a 429 or 503 is tried again after this many seconds.
    public static let defaultRetryAfter: Double = 10

    public var retryAt: Date? {
        switch self {
        case let .rateLimited(_, _, after): Date().addingTimeInterval(max(0, after ?? Self.defaultRetryAfter))
        case let .held(_, until, _): until
        default: nil
        }
    }

    public var isRetryable: Bool {
        switch self {
        case .rejected, .tooLarge, .refusedURL: false
        default: true
        }
    }

    /// `12 s`, `3 min`, `2 h`.
    static func seconds(_ interval: Double) -> String {
        let seconds = max(0, interval)
        guard seconds.isFinite, seconds < 1e9 else { return "a long time" }
        if seconds < 120 { return "\(Int(seconds.rounded(.up))) s" }
        if seconds < 7200 { return "\(Int((seconds / 60).rounded(.up))) min" }
        return "\(Int((seconds / 3600).rounded(.up))) h"
    }

    public var description: String {
        switch self {
        case let .rateLimited(service, status, after):
            "\(service): HTTP \(status), asked to slow down" + (after.map { " (retry after \(Int(exactly: $0.rounded(.up)).map(String.init) ?? "\($0)") s)" } ?? "")
        case let .serverError(service, status): "\(service): HTTP \(status)"
        case let .rejected(service, status): "\(service): request refused with HTTP \(status)"
        case let .truncated(service, expected, received):
            "\(service): answer cut short (\(received) of \(expected.map(String.init) ?? "?") bytes)"
        case let .tooLarge(service, limit): "\(service): answer larger than \(limit) bytes"
        case let .unreachable(service, reason): "\(service): \(reason)"
        case let .timeout(service): "\(service): no answer in time"
        case let .refusedURL(service, url, reason): "\(service): not fetching \(url): \(reason)"
        case let .held(service, until, reason):
            "\(service): held back for \(Self.seconds(until.timeIntervalSinceNow)) (\(reason))"
        }
    }
}
