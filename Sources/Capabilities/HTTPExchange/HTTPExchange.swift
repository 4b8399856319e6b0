import AsyncHTTPClient
import Foundation
import NIOCore
import RepartoConfiguration

/// What every HTTP client of Reparto (the speech providers, the generation providers, the book
/// services) does the same way with AsyncHTTPClient: read an answer's body whole under a size
/// cap, tell a deadline from a dropped connection, read `Retry-After`, follow redirects without
/// carrying credentials to another origin, and keep a secret out of error text. Each client maps a
/// ``Failure`` to its own typed error.
public enum HTTPExchange {
    /// The client every Reparto HTTP client uses by default: `HTTPClient.shared`'s settings, except
    /// that it follows no redirect itself. ``send(_:on:timeout:limit:secret:redirects:)`` follows
    /// them instead, so it decides what each hop carries (AsyncHTTPClient would keep `x-api-key`
    /// and `xi-api-key` on a redirect to another origin; it drops only `Authorization`).
    public static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Headers that carry credentials: sent to the origin they were meant for, never after a
    /// redirect to another one (with any header whose value holds the request's secret).
    public static let credentialHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "x-api-key", "xi-api-key", "api-key", "x-goog-api-key",
    ]

    /// Which redirects ``send(_:on:timeout:limit:secret:redirects:)`` follows: at most `limit`
    /// hops, only to `http` and `https` URLs, each target first passed to `check`.
    public struct Redirects: Sendable {
        /// Hops followed before ``Failure/redirectRefused(to:reason:)``.
        public var limit: Int
        /// A reason to refuse the target, or nil to follow it (the scheme is checked before).
        public var check: @Sendable (URL) async -> String?

        public init(limit: Int = 5, check: @escaping @Sendable (URL) async -> String? = { _ in nil }) {
            (self.limit, self.check) = (limit, check)
        }

        /// Up to 5 hops anywhere over http(s); credentials only to the first request's origin.
        public static let standard = Redirects()
    }

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
        /// A redirect was not followed: too many hops, a scheme other than http(s), or the
        /// policy's reason. `to` is the target with its query removed (it may hold a key).
        case redirectRefused(to: String, reason: String)
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
    /// within `timeout` seconds for the whole exchange, redirects included.
    ///
    /// Redirects (301, 302, 303, 307, 308 with a `Location`) are followed as `redirects` allows;
    /// a hop to another origin (scheme, host or port) goes without ``credentialHeaders`` and
    /// without any header holding `secret`. `client` must not follow redirects itself (as
    /// ``client`` does not): its own hops would skip these rules. `HTTPClient.shared`, which does,
    /// the providers' configurations' default, is replaced by ``client``.
    public static func send(_ request: HTTPClientRequest, on client: HTTPClient = HTTPExchange.client, timeout: Double, limit: Int,
                            secret: Secret? = nil, redirects: Redirects = .standard) async throws(Failure) -> (response: HTTPClientResponse, body: Data) {
        let response = try await execute(request, on: client, timeout: timeout, secret: secret, redirects: redirects)
        return (response, try await body(of: response, limit: limit))
    }

    /// Sends `request` and follows its redirects as ``send(_:on:timeout:limit:secret:redirects:)``
    /// does, returning the last answer with its body unread; `timeout` covers every hop.
    public static func execute(_ request: HTTPClientRequest, on client: HTTPClient = HTTPExchange.client, timeout: Double,
                               secret: Secret? = nil, redirects: Redirects = .standard) async throws(Failure) -> HTTPClientResponse {
        // A day at most: a timeout of 1e300 must not trap converting to nanoseconds.
        let milliseconds = Int64(exactly: (max(0, min(timeout, 86_400)) * 1000).rounded()) ?? 0
        let deadline = NIODeadline.now() + .milliseconds(milliseconds)
        let client = client === HTTPClient.shared ? Self.client : client
        var request = request
        var hops = 0
        while true {
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, deadline: deadline)
            } catch {
                throw failure(sending: error, secret: secret)
            }
            guard let target = redirectTarget(response, from: request.url) else { return response }
            let shown = display(target)
            guard hops < redirects.limit else { throw .redirectRefused(to: shown, reason: "more than \(redirects.limit) redirects") }
            guard let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw .redirectRefused(to: shown, reason: "not an http(s) URL")
            }
            if let reason = await redirects.check(target) { throw .redirectRefused(to: shown, reason: reason) }
            hops += 1
            request = redirected(request, to: target, status: Int(response.status.code), secret: secret)
        }
    }

    /// Where a 3xx answer sends the request next, resolved against the URL it answered.
    static func redirectTarget(_ response: HTTPClientResponse, from url: String) -> URL? {
        guard [301, 302, 303, 307, 308].contains(Int(response.status.code)),
              let location = response.headers.first(name: "location"),
              let base = URL(string: url), let target = URL(string: location, relativeTo: base)?.absoluteURL else { return nil }
        return target
    }

    /// The request to send to `target` after a `status` redirect: 303 (and 301/302 after a POST)
    /// become a GET without a body, as browsers do; another origin gets no credentials.
    static func redirected(_ request: HTTPClientRequest, to target: URL, status: Int, secret: Secret?) -> HTTPClientRequest {
        var next = request
        next.url = target.absoluteString
        if (status == 303 && request.method != .HEAD) || ((status == 301 || status == 302) && request.method == .POST) {
            next.method = .GET
            next.body = nil
            next.headers.remove(name: "content-length")
            next.headers.remove(name: "content-type")
        }
        if let original = URL(string: request.url), !sameOrigin(original, target) {
            for header in request.headers {
                let holdsSecret = secret.map { !$0.value.isEmpty && header.value.contains($0.value) } ?? false
                if credentialHeaders.contains(header.name.lowercased()) || holdsSecret { next.headers.remove(name: header.name) }
            }
        }
        return next
    }

    /// Scheme, host and port (the scheme's default when absent) are the same.
    public static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int?) {
            let scheme = url.scheme?.lowercased() ?? ""
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
            return (scheme, url.host?.lowercased() ?? "", port)
        }
        return origin(a) == origin(b)
    }

    /// A URL for error text: scheme, host, port and path, no query or credentials.
    public static func display(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return "(unreadable URL)" }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.string ?? "(unreadable URL)"
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
