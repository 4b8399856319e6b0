import AsyncHTTPClient
import Foundation
import HTTPExchange
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
    /// The client; `HTTPClient.shared` (which ``HTTPExchange`` replaces by its own, following
    /// redirects without sending the key to another origin) unless one is injected.
    let client: HTTPClient
    /// Deadline for the whole request including the body, in seconds.
    let timeout: TimeInterval
    /// Largest response body accepted.
    let maxResponseBytes: Int
    /// What the answer should be, for the error a body larger than ``maxResponseBytes`` gets.
    var expecting: Expecting = .audio

    /// The kind of answer a request expects.
    enum Expecting: Sendable {
        /// Audio: too large is ``SpeechError/invalidAudio(provider:reason:)``.
        case audio
        /// A voice listing: too large is ``SpeechError/rejected(provider:status:message:)``.
        case voiceListing
    }

    /// Sends the request and returns a 2xx response; throws ``SpeechError`` for anything else.
    func send(method: String, url: String, headers: [(String, String)], body: Data?, secret: Secret?) async throws -> Response {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(body) }

        let response: HTTPClientResponse
        let bytes: Data
        do {
            (response, bytes) = try await HTTPExchange.send(request, on: client, timeout: timeout, limit: maxResponseBytes, secret: secret)
        } catch {
            throw self.error(error)
        }
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            throw Self.statusError(provider: provider, status: status,
                                   retryAfter: response.headers.first(name: "retry-after"), body: bytes, secret: secret)
        }
        return Response(status: status, contentType: response.headers.first(name: "content-type"), body: bytes)
    }

    private func error(_ failure: HTTPExchange.Failure) -> SpeechError {
        switch failure {
        case .timeout: .timeout(provider: provider)
        case let .cutShort(expected, received): .truncatedResponse(provider: provider, expected: expected, received: received)
        case let .tooLarge(limit, _):
            switch expecting {
            case .audio: .invalidAudio(provider: provider, reason: "response larger than \(limit) bytes")
            case .voiceListing: .rejected(provider: provider, status: 200, message: "voice listing larger than \(limit) bytes")
            }
        case let .unreachable(reason): .connectionFailed(provider: provider, reason: reason)
        case let .redirectRefused(target, reason): .connectionFailed(provider: provider, reason: "redirect to \(target) not followed: \(reason)")
        }
    }

    /// Maps a non-2xx status to the matching error.
    static func statusError(provider: String, status: Int, retryAfter: String?, body: Data, secret: Secret?) -> SpeechError {
        switch status {
        case 429: return .rateLimited(provider: provider, retryAfter: HTTPExchange.retryAfter(retryAfter))
        case 401, 403: return .unauthorized(provider: provider, status: status)
        case 500...599: return .serverError(provider: provider, status: status)
        default: return .rejected(provider: provider, status: status, message: providerMessage(body, secret: secret))
        }
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
        return message.map { String(HTTPExchange.redact($0, secret: secret).prefix(200)) }
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
