import AsyncHTTPClient
import Foundation
@testable import HTTPExchange
import RepartoConfiguration
import RepartoTestSupport
import Testing
@testable import Speech

/// An API key goes only to the origin it was meant for: a redirect to another origin (here another
/// port on 127.0.0.1) is followed without it; one to the same origin keeps it.
@Suite(.timeLimit(.minutes(2)))
struct RedirectCredentialTests {
    static let key = "xi-SECRET-redirect-789"
    static let listing = Data(#"{"voices": [{"voice_id": "v1", "name": "Rachel"}]}"#.utf8)

    /// A server answering the voice listing, and one redirecting every request to it.
    func servers(redirectStatus: Int = 307) throws -> (target: FakeHTTPServer, redirector: FakeHTTPServer) {
        let target = try FakeHTTPServer { _ in .respond(status: 200, headers: [("Content-Type", "application/json")], body: Self.listing) }
        let base = target.baseURL
        let redirector = try FakeHTTPServer { request in
            .respond(status: redirectStatus, headers: [("Location", base + request.target)], body: Data())
        }
        return (target, redirector)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func elevenLabsKeyIsNotSentToAnotherOrigin(_ status: Int) async throws {
        let (target, redirector) = try servers(redirectStatus: status)
        defer { target.stop(); redirector.stop() }
        let provider = ElevenLabsProvider(configuration: .init(baseURL: redirector.baseURL, apiKey: Secret(Self.key), timeout: StandInTimeout.seconds))
        let voices = try await provider.voices(language: nil)
        #expect(voices.map(\.id) == ["v1"], "the redirect was followed")
        #expect(redirector.requests.first?.headers["xi-api-key"] == Self.key, "the first origin got the key")
        let followed = try #require(target.requests.first)
        #expect(followed.headers["xi-api-key"] == nil, "no key after the redirect: \(followed.headers)")
        #expect(!followed.headers.values.contains { $0.contains(Self.key) })
    }

    @Test func openAISpeechKeyIsNotSentToAnotherOrigin() async throws {
        let wav = Signals.sine(seconds: 0.1, sampleRate: 24000).wavData()
        let target = try FakeHTTPServer { _ in .respond(status: 200, headers: [("Content-Type", "audio/wav")], body: wav) }
        let base = target.baseURL
        let redirector = try FakeHTTPServer { request in .respond(status: 307, headers: [("Location", base + request.target)], body: Data()) }
        defer { target.stop(); redirector.stop() }
        let provider = OpenAISpeechProvider(configuration: .init(baseURL: redirector.baseURL + "/v1", apiKey: Secret(Self.key), timeout: StandInTimeout.seconds))
        _ = try await provider.synthesize(text: "Hello", voice: "nova", language: "en", options: .init())
        #expect(redirector.requests.first?.headers["authorization"] == "Bearer \(Self.key)")
        let followed = try #require(target.requests.first)
        #expect(followed.method == "POST", "307 keeps the method")
        #expect(!followed.body.isEmpty, "and the body")
        #expect(followed.headers["authorization"] == nil)
    }

    @Test func aRedirectWithinTheOriginKeepsTheKey() async throws {
        let server = try FakeHTTPServer { request in
            request.path == "/v1/voices"
                ? .respond(status: 308, headers: [("Location", "/v2/voices")], body: Data())
                : .respond(status: 200, headers: [("Content-Type", "application/json")], body: Self.listing)
        }
        defer { server.stop() }
        let provider = ElevenLabsProvider(configuration: .init(baseURL: server.baseURL, apiKey: Secret(Self.key), timeout: StandInTimeout.seconds))
        #expect(try await provider.voices(language: nil).count == 1)
        #expect(server.requests.map(\.path) == ["/v1/voices", "/v2/voices"])
        #expect(server.requests.allSatisfy { $0.headers["xi-api-key"] == Self.key })
    }

    @Test func anyHeaderHoldingTheSecretIsDroppedAndCookiesToo() async throws {
        let target = try FakeHTTPServer { _ in .respond(status: 200, headers: [], body: Data("ok".utf8)) }
        let base = target.baseURL
        let redirector = try FakeHTTPServer { _ in .respond(status: 302, headers: [("Location", base + "/there")], body: Data()) }
        defer { target.stop(); redirector.stop() }
        var request = HTTPClientRequest(url: redirector.baseURL + "/here")
        request.headers.add(name: "X-Custom-Auth", value: "token=\(Self.key)")
        request.headers.add(name: "Cookie", value: "session=1")
        request.headers.add(name: "User-Agent", value: "reparto-test")
        let (response, body) = try await HTTPExchange.send(request, timeout: StandInTimeout.seconds, limit: 1024, secret: Secret(Self.key))
        #expect(response.status.code == 200)
        #expect(String(decoding: body, as: UTF8.self) == "ok")
        let followed = try #require(target.requests.first)
        #expect(followed.headers["x-custom-auth"] == nil)
        #expect(followed.headers["cookie"] == nil)
        #expect(followed.headers["user-agent"] == "reparto-test", "other headers go along")
    }

    @Test func tooManyRedirectsAndOtherSchemesAreRefused() async throws {
        let loop = try FakeHTTPServer { request in
            .respond(status: 302, headers: [("Location", "/hop" + request.path)], body: Data())
        }
        let file = try FakeHTTPServer { _ in .respond(status: 302, headers: [("Location", "file:///etc/passwd")], body: Data()) }
        defer { loop.stop(); file.stop() }
        await #expect(throws: HTTPExchange.Failure.redirectRefused(to: loop.baseURL + String(repeating: "/hop", count: 6) + "/start",
                                                                      reason: "more than 5 redirects")) {
            _ = try await HTTPExchange.send(HTTPClientRequest(url: loop.baseURL + "/start"), timeout: StandInTimeout.seconds, limit: 1024)
        }
        await #expect(throws: HTTPExchange.Failure.redirectRefused(to: "file:///etc/passwd", reason: "not an http(s) URL")) {
            _ = try await HTTPExchange.send(HTTPClientRequest(url: file.baseURL + "/"), timeout: StandInTimeout.seconds, limit: 1024)
        }
    }

    @Test func theSharedClientIsReplacedSoItsOwnRedirectsCannotCarryTheKey() async throws {
        let (target, redirector) = try servers()
        defer { target.stop(); redirector.stop() }
        var request = HTTPClientRequest(url: redirector.baseURL + "/v1/voices")
        request.headers.add(name: "xi-api-key", value: Self.key)
        _ = try await HTTPExchange.send(request, on: .shared, timeout: StandInTimeout.seconds, limit: 1024, secret: Secret(Self.key))
        #expect(target.requests.first?.headers["xi-api-key"] == nil)
    }

    @Test func originsCompareSchemeHostAndPort() throws {
        func url(_ text: String) throws -> URL { try #require(URL(string: text)) }
        #expect(HTTPExchange.sameOrigin(try url("https://api.example.com/a"), try url("https://API.example.com:443/b")))
        #expect(!HTTPExchange.sameOrigin(try url("https://api.example.com/a"), try url("http://api.example.com/a")))
        #expect(!HTTPExchange.sameOrigin(try url("http://127.0.0.1:8080/"), try url("http://127.0.0.1:8081/")))
        #expect(!HTTPExchange.sameOrigin(try url("https://api.example.com/"), try url("https://api.example.com.evil.test/")))
    }
}
