import Foundation
import RepartoRuntime
import Testing
@testable import Generation
@testable import Providers

/// The fallback rule, the content keys and the provider look-ups, no server.
@Suite(.timeLimit(.minutes(1))) struct FallbackChainTests {
    @Test func permanentFailuresMoveOnAtOnce() {
        for error in [ProviderError.unauthorized(provider: "a", status: 401, message: nil), .refused(provider: "a", reason: "no"),
                      .notConfigured(provider: "a", hint: "set X"), .disabled(provider: "a"), .quotaExhausted(provider: "a", message: nil)] {
            #expect(FallbackChain.step(after: error, attempt: 1, maxAttempts: 5) == .next, "\(error)")
        }
    }

    @Test func retryableFailuresRetryUntilTheLastAttempt() {
        let errors: [ProviderError] = [.rateLimited(provider: "a", retryAfter: 3), .serverError(provider: "a", status: 503, retryAfter: nil),
                                       .timeout(provider: "a"), .malformedResponse(provider: "a", reason: "x", bodyPrefix: "<")]
        for error in errors {
            #expect(FallbackChain.step(after: error, attempt: 4, maxAttempts: 5) == .retryLater, "\(error)")
            #expect(FallbackChain.step(after: error, attempt: 5, maxAttempts: 5) == .next, "\(error)")
        }
    }

    @Test func aRetryAfterBecomesRetryAt() throws {
        let now = Date(timeIntervalSince1970: 1_000)
        let error = ProviderChainRunner.jobError(for: .rateLimited(provider: "a", retryAfter: 7), now: now)
        #expect((error as? any RetryAtError)?.retryAt == now.addingTimeInterval(7))
        let plain = ProviderChainRunner.jobError(for: .timeout(provider: "a"), now: now)
        #expect(plain as? ProviderError == .timeout(provider: "a"))
    }

    @Test func contentKeysChangeWithEveryInput() {
        let request = TextGenerationRequest(prompt: "Hi", system: "S", maxTokens: 10, temperature: 0.5)
        let base = GenerationKey.text(provider: "openai", model: "m", request: request)
        #expect(base == GenerationKey.text(provider: "openai", model: "m", request: request))
        #expect(base != GenerationKey.text(provider: "anthropic", model: "m", request: request))
        #expect(base != GenerationKey.text(provider: "openai", model: "m2", request: request))
        var warmer = request
        warmer.temperature = 0.6
        #expect(base != GenerationKey.text(provider: "openai", model: "m", request: warmer))
        var longer = request
        longer.maxTokens = 11
        #expect(base != GenerationKey.text(provider: "openai", model: "m", request: longer))
        #expect(base.kind == "text")
        #expect(GenerationKey.embedding(provider: "p", model: "m", text: "a") != GenerationKey.embedding(provider: "p", model: "m", text: "b"))
        #expect(GenerationKey.image(provider: "p", model: "m", request: ImageRequest(prompt: "x", size: "256x256"))
                != GenerationKey.image(provider: "p", model: "m", request: ImageRequest(prompt: "x", size: "512x512")))
    }

    @Test func floatArraysReadBackFromTheirTextForm() {
        #expect(GenerationRows.parseFloatArray("{1,2.5,-3,1e-05}") == [1, 2.5, -3, 0.00001])
        #expect(GenerationRows.parseFloatArray("{}") == [])
    }

    @Test func theRegistryChecksCapabilityAndConfiguration() {
        let registry = GenerationProviderRegistry([
            OpenAICompatibleProvider(configuration: .init(apiKey: nil)),
            AnthropicProvider(configuration: .init(apiKey: .init("k"))),
        ])
        #expect(throws: ProviderError.unsupported(provider: "anthropic", capability: .embedding)) { try registry.embeddingProvider("anthropic") }
        #expect(throws: ProviderError.unknownProvider("nope")) { try registry.textProvider("nope") }
        do {
            _ = try registry.textProvider("openai")
            Issue.record("openai without a key or base URL must not be configured")
        } catch {
            guard case .notConfigured = error else { Issue.record("\(error)"); return }
        }
        #expect(registry.firstConfigured(.text)?.id == "anthropic")
        #expect(registry.firstConfigured(.image) == nil)
    }
}
