import AsyncHTTPClient
import Foundation
import RepartoConfiguration

/// What every HTTP client of Reparto (the speech providers, the generation providers, the book
/// services) does the same way with AsyncHTTPClient: read an answer's body whole under a size
/// cap, tell a deadline from a dropped connection, read `Retry-After`, and keep a secret out of
/// error text. Each client maps a ``Failure`` to its own typed error.
public enum HTTPExchange {
    /// Why a request got no complete answer.
    public enum Failure: Error, Sendable, Equatable {
        /// The deadline passed, connecting or reading the answer.
        case timeout
        /// The answer ended before its `Content-Length`, or the connection closed mid-answer.
        case cutShort(expected: Int?, received: Int)
        /// The answer is larger than `limit` bytes; `prefix` is what was read of it.
        case tooLarge(limit: Int, prefix: Data)
        /// No answer at all (refused, name resolution, TLS): the error's text, the secret redacted.
        case unreachable(String)
    }

    /// The failure behind an error `HTTPClient.execute` threw.
    public static func failure(sending error: any Error, secret: Secret? = nil) -> Failure {
        if let e = error as? HTTPClientError {
            if e == .deadlineExceeded || e == .readTimeout || e == .connectTimeout { return .timeout }
            if e == .remoteConnectionClosed { return .cutShort(expected: nil, received: 0) }
        }
        return .unreachable(redact(String(describing: error), secret: secret))
    }

    /// Sends `request` and reads its answer whole (see ``body(of:limit:)``), whatever its status,
    /// within `timeout` seconds for the whole exchange.
    public static func send(_ request: HTTPClientRequest, on client: HTTPClient, timeout: Double, limit: Int,
                            secret: Secret? = nil) async throws(Failure) -> (response: HTTPClientResponse, body: Data) {
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .milliseconds(Int64((timeout * 1000).rounded())))
        } catch {
            throw failure(sending: error, secret: secret)
        }
        return (response, try await body(of: response, limit: limit))
    }

    /// The body of `response`, read whole: at most `limit` bytes, and all its `Content-Length` announced.
    public static func body(of response: HTTPClientResponse, limit: Int) async throws(Failure) -> Data {
        let expected = response.headers.first(name: "content-length").flatMap(Int.init)
        var bytes = Data()
        do {
            for try await chunk in response.body {
                bytes.append(contentsOf: chunk.readableBytesView)
                if bytes.count > limit { throw Failure.tooLarge(limit: limit, prefix: bytes) }
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            if let e = error as? HTTPClientError, e == .deadlineExceeded || e == .readTimeout { throw .timeout }
            throw .cutShort(expected: expected, received: bytes.count)
        }
        if let expected, bytes.count < expected { throw .cutShort(expected: expected, received: bytes.count) }
        return bytes
    }

    /// The longest wait a `Retry-After` is read as (one day): `1e30` must not become a date or a
    /// `Duration` that traps; each limit caps it further.
    public static let longestRetryAfter: TimeInterval = 86_400

    /// `Retry-After` in seconds, at most ``longestRetryAfter``: delta-seconds or an HTTP date
    /// (nil when absent, negative or unreadable).
    /// - Parameter now: the instant an HTTP date is measured from.
    public static func retryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value) { return seconds >= 0 && seconds.isFinite ? min(seconds, longestRetryAfter) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), longestRetryAfter)
    }

    /// `text` with the secret's value replaced by `<redacted>`.
    public static func redact(_ text: String, secret: Secret?) -> String {
        guard let secret, !secret.value.isEmpty else { return text }
        return text.replacingOccurrences(of: secret.value, with: "<redacted>")
    }
}
