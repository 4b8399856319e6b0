import AsyncHTTPClient
import Foundation
import RepartoConfiguration

/// The HTTP round trip shared by the HTTP providers, with every failure mapped to ``SpeechError``.
struct HTTPSpeechTransport: Sendable {
    struct Response: Sendable {
        var status: Int
        var contentType: String?
        var body: Data
    }

    /// The provider id used in errors.
    let provider: String
    /// The client; `HTTPClient.shared` unless one is injected.
    let client: HTTPClient
    /// Deadline for the whole request including the body, in seconds.
    let timeout: TimeInterval
    /// Largest response body accepted.
    let maxResponseBytes: Int

    /// Sends the request and returns a 2xx response; throws ``SpeechError`` for anything else.
    func send(method: String, url: String, headers: [(String, String)], body: Data?, secret: Secret?) async throws -> Response {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(body) }
        let millis = Int64((timeout * 1000).rounded())

        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .milliseconds(millis))
        } catch {
            throw mapTransport(error, secret: secret)
        }
        let status = Int(response.status.code)
        let expected = response.headers.first(name: "content-length").flatMap(Int.init)
        var bytes = Data()
        do {
            for try await chunk in response.body {
                bytes.append(contentsOf: chunk.readableBytesView)
                if bytes.count > maxResponseBytes {
                    throw SpeechError.invalidAudio(provider: provider, reason: "response larger than \(maxResponseBytes) bytes")
                }
            }
        } catch let error as SpeechError {
            throw error
        } catch {
            if let e = error as? HTTPClientError, e == .deadlineExceeded || e == .readTimeout { throw SpeechError.timeout(provider: provider) }
            throw SpeechError.truncatedResponse(provider: provider, expected: expected, received: bytes.count)
        }
        if let expected, bytes.count < expected {
            throw SpeechError.truncatedResponse(provider: provider, expected: expected, received: bytes.count)
        }
        guard (200..<300).contains(status) else {
            throw Self.statusError(provider: provider, status: status,
                                   retryAfter: response.headers.first(name: "retry-after"), body: bytes, secret: secret)
        }
        return Response(status: status, contentType: response.headers.first(name: "content-type"), body: bytes)
    }

    private func mapTransport(_ error: any Error, secret: Secret?) -> SpeechError {
        if let e = error as? HTTPClientError {
            if e == .deadlineExceeded || e == .readTimeout || e == .connectTimeout { return .timeout(provider: provider) }
            if e == .remoteConnectionClosed { return .truncatedResponse(provider: provider, expected: nil, received: 0) }
        }
        return .connectionFailed(provider: provider, reason: Self.redact(String(describing: error), secret: secret))
    }

    /// Maps a non-2xx status to the matching error.
    static func statusError(provider: String, status: Int, retryAfter: String?, body: Data, secret: Secret?) -> SpeechError {
        switch status {
        case 429: return .rateLimited(provider: provider, retryAfter: retryAfter.flatMap(parseRetryAfter))
        case 401, 403: return .unauthorized(provider: provider, status: status)
        case 500...599: return .serverError(provider: provider, status: status)
        default: return .rejected(provider: provider, status: status, message: providerMessage(body, secret: secret))
        }
    }

    /// `Retry-After` as seconds: either delta-seconds or an HTTP date.
    static func parseRetryAfter(_ value: String) -> TimeInterval? {
        let v = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(v), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: v) else { return nil }
        return max(0, date.timeIntervalSinceNow)
    }

    /// A short explanation from a JSON error body (`{"error":{"message"}}` or `{"detail":{"message"}}`
    /// or `{"detail":"…"}`, or ElevenLabs' validation errors `{"detail":[{"loc","msg","type"}]}`),
    /// at most 200 characters, with the key redacted.
    static func providerMessage(_ body: Data, secret: Secret?) -> String? {
        guard let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        var message: String?
        if let error = json["error"] as? [String: Any] { message = error["message"] as? String }
        if message == nil, let detail = json["detail"] as? [String: Any] { message = detail["message"] as? String }
        if message == nil, let details = json["detail"] as? [[String: Any]] {
            let messages = details.compactMap { $0["msg"] as? String }
            if !messages.isEmpty { message = messages.joined(separator: "; ") }
        }
        if message == nil { message = (json["detail"] as? String) ?? (json["error"] as? String) ?? (json["message"] as? String) }
        return message.map { String(redact($0, secret: secret).prefix(200)) }
    }

    static func redact(_ text: String, secret: Secret?) -> String {
        guard let secret, !secret.value.isEmpty else { return text }
        return text.replacingOccurrences(of: secret.value, with: "<redacted>")
    }

    /// Rejects bodies that are clearly not audio (JSON, HTML, text) by content type or first bytes.
    static func rejectNonAudio(_ response: Response, provider: String) throws(SpeechError) {
        let type = (response.contentType ?? "").lowercased()
        if type.hasPrefix("application/json") || type.hasPrefix("text/") {
            throw .invalidAudio(provider: provider, reason: "content type \(type)")
        }
        guard !response.body.isEmpty else { throw .invalidAudio(provider: provider, reason: "empty body") }
        let first = response.body.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) })
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "<") || first == UInt8(ascii: "[") {
            if String(data: response.body.prefix(4096), encoding: .utf8) != nil {
                throw .invalidAudio(provider: provider, reason: "body looks like text, not audio")
            }
        }
    }
}
