import Foundation
import RepartoConfiguration
import RepartoTestSupport
import Testing
@testable import Providers

/// The generation providers' keys (Anthropic's `x-api-key`, OpenAI's `Authorization`) are not sent
/// again after a redirect to another origin (another port on 127.0.0.1).
@Suite(.timeLimit(.minutes(2)))
struct ProviderRedirectTests {
    static let key = "sk-ant-SECRET-redirect-321"

    func redirector(to target: FakeHTTPServer) throws -> FakeHTTPServer {
        let base = target.baseURL
        return try FakeHTTPServer { request in .respond(status: 307, headers: [("Location", base + request.target)], body: Data()) }
    }

    @Test func anthropicKeyStaysWithItsOrigin() async throws {
        let target = try FakeHTTPServer { _ in ProviderStandIns.anthropicMessage("INT. HALL - DAY") }
        let redirector = try redirector(to: target)
        defer { target.stop(); redirector.stop() }
        let provider = AnthropicProvider(configuration: .init(baseURL: redirector.baseURL, apiKey: Secret(Self.key), timeout: StandInTimeout.seconds))
        let text = try await provider.generateText(TextGenerationRequest(prompt: "A slug line"))
        #expect(text.text == "INT. HALL - DAY")
        #expect(redirector.requests.first?.headers["x-api-key"] == Self.key)
        let followed = try #require(target.requests.first)
        #expect(followed.headers["x-api-key"] == nil, "\(followed.headers)")
        #expect(followed.headers["anthropic-version"] != nil, "headers without credentials go along")
        #expect(!followed.headers.values.contains { $0.contains(Self.key) })
    }

    @Test func openAIAuthorizationStaysWithItsOrigin() async throws {
        let target = try FakeHTTPServer { _ in ProviderStandIns.openAIChat("hi") }
        let redirector = try redirector(to: target)
        defer { target.stop(); redirector.stop() }
        let provider = OpenAICompatibleProvider(configuration: .init(baseURL: redirector.baseURL + "/v1", apiKey: Secret(Self.key), timeout: StandInTimeout.seconds))
        _ = try await provider.generateText(TextGenerationRequest(prompt: "hello"))
        #expect(redirector.requests.first?.headers["authorization"] == "Bearer \(Self.key)")
        #expect(target.requests.first?.headers["authorization"] == nil)
    }
}
