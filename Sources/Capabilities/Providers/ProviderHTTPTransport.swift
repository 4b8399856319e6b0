import AsyncHTTPClient
import Foundation
import HTTPExchange
import NIOCore
import RepartoConfiguration

/// The HTTP round trip of the generation providers: sends one JSON request with
/// AsyncHTTPClient (non-blocking, never on a thread of its own) and maps every failure to
/// ``ProviderError``: status codes by ``ProviderHTTPFailure``, deadlines to
/// ``ProviderError/timeout(provider:)``, a body shorter than its `Content-Length` or cut by a
/// closed connection to ``ProviderError/truncatedResponse(provider:expected:received:)``.
public struct ProviderHTTPTransport: Sendable {
    /// A 2xx answer.
    public struct Response: Sendable {
        public var status: Int
        public var body: Data
    }

    /// The provider id used in errors.
    public let provider: String
    public let client: HTTPClient
    /// Deadline for the whole request including the body, in seconds.
    public let timeout: TimeInterval
    /// Largest body accepted (an image in base64 is a few MB).
    public let maxResponseBytes: Int

    public init(provider: String, client: HTTPClient, timeout: TimeInterval, maxResponseBytes: Int = 64 << 20) {
        (self.provider, self.client, self.timeout, self.maxResponseBytes) = (provider, client, timeout, maxResponseBytes)
    }

    /// POSTs `body` as JSON to `url` and returns the 2xx answer.
    /// - Parameter secret: the key in the headers, redacted from any error text.
    public func postJSON(url: String, headers: [(String, String)], body: Data, secret: Secret?) async throws(ProviderError) -> Response {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "accept", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response: HTTPClientResponse
        let bytes: Data
        do {
            (response, bytes) = try await HTTPExchange.send(request, on: client, timeout: timeout, limit: maxResponseBytes, secret: secret)
        } catch {
            throw self.error(error)
        }
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            var names: [String: String] = [:]
            for header in response.headers { names[header.name.lowercased()] = header.value }
            throw ProviderHTTPFailure.error(provider: provider, status: status, headers: names, body: bytes, secret: secret)
        }
        return Response(status: status, body: bytes)
    }

    private func error(_ failure: HTTPExchange.Failure) -> ProviderError {
        switch failure {
        case .timeout: .timeout(provider: provider)
        case let .cutShort(expected, received): .truncatedResponse(provider: provider, expected: expected, received: received)
        case let .tooLarge(limit, prefix):
            .malformedResponse(provider: provider, reason: "response larger than \(limit) bytes", bodyPrefix: ProviderError.prefix(of: prefix))
        case let .unreachable(reason): .connectionFailed(provider: provider, reason: reason)
        case let .redirectRefused(target, reason): .connectionFailed(provider: provider, reason: "redirect to \(target) not followed: \(reason)")
        }
    }

    /// A base URL without a trailing `/` or `/v1`, so `OPENAI_BASE_URL=http://127.0.0.1:11434/v1`
    /// (the SDKs' form) and `http://127.0.0.1:11434` both work; paths add `/v1/…`.
    public static func normalizedBase(_ url: String) -> String {
        var base = url.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasSuffix("/v1") { base.removeLast(3) }
        return base
    }
}
