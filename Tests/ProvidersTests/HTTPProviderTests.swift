import Foundation
import RepartoConfiguration
import RepartoTestSupport
import Testing
@testable import Providers

/// The OpenAI-compatible and Anthropic clients against local stand-ins speaking each API's wire
/// format (``ProviderStandIns``), including its failures.
@Suite(.timeLimit(.minutes(2))) struct HTTPProviderTests {
    static let key = "sk-test-SECRET-456"

    func openAI(_ server: FakeHTTPServer, key: String? = HTTPProviderTests.key, batch: Int = 256, timeout: TimeInterval = StandInTimeout.seconds) -> OpenAICompatibleProvider {
        OpenAICompatibleProvider(configuration: .init(baseURL: server.baseURL + "/v1", apiKey: key.map(Secret.init),
                                                      embeddingBatchSize: batch, timeout: timeout))
    }

    func anthropic(_ server: FakeHTTPServer, timeout: TimeInterval = StandInTimeout.seconds) -> AnthropicProvider {
        AnthropicProvider(configuration: .init(baseURL: server.baseURL, apiKey: Secret(Self.key), timeout: timeout))
    }

    /// The ``ProviderError`` `body` throws; nil (and a recorded issue) when it throws nothing or something else.
    func failure(_ body: () async throws -> Void) async -> ProviderError? {
        do {
            try await body()
            Issue.record("expected a ProviderError")
            return nil
        } catch let error as ProviderError {
            return error
        } catch {
            Issue.record("expected a ProviderError, got \(error)")
            return nil
        }
    }

    @Test func chatSendsTheDocumentedRequestAndReturnsTextAndUsage() async throws {
        let server = try FakeHTTPServer { _ in ProviderStandIns.openAIChat("INT. KITCHEN - NIGHT", promptTokens: 30, completionTokens: 6) }
        defer { server.stop() }
        let text = try await openAI(server).generateText(TextGenerationRequest(prompt: "Write a slug line", system: "Screenwriter", maxTokens: 20))
        #expect(text.text == "INT. KITCHEN - NIGHT")
        #expect(text.inputTokens == 30)
        #expect(text.outputTokens == 6)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/chat/completions")
        #expect(request.headers["authorization"] == "Bearer \(Self.key)")
        #expect(request.headers["content-type"] == "application/json")
        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(json["model"] as? String == "gpt-4o-mini")
        #expect(json["max_tokens"] as? Int == 20)
    }

    @Test func aLocalServerNeedsNoKey() async throws {
        let server = try FakeHTTPServer { _ in ProviderStandIns.openAIChat("hi", model: "llama3.2") }
        defer { server.stop() }
        let provider = openAI(server, key: nil)
        #expect(provider.isConfigured)
        let text = try await provider.generateText(TextGenerationRequest(prompt: "hello", model: "llama3.2"))
        #expect(text.model == "llama3.2")
        #expect(server.requests.first?.headers["authorization"] == nil)
    }

    @Test func theOfficialAPIWithoutAKeyIsNotConfiguredAndSendsNothing() async {
        let provider = OpenAICompatibleProvider(configuration: .init(apiKey: nil))
        #expect(!provider.isConfigured)
        #expect(provider.configurationHint.contains("OPENAI_BASE_URL"))
        let error = await failure { _ = try await provider.generateText(TextGenerationRequest(prompt: "x")) }
        guard case .notConfigured(provider: "openai", _)? = error else { Issue.record("got \(String(describing: error))"); return }
    }

    @Test func rateLimitedCarriesRetryAfter() async throws {
        let server = try FakeHTTPServer { _ in ProviderStandIns.openAIRateLimited(retryAfter: 2) }
        defer { server.stop() }
        let error = await failure { _ = try await openAI(server).generateText(TextGenerationRequest(prompt: "x")) }
        #expect(error == .rateLimited(provider: "openai", retryAfter: 2))
    }

    @Test func unauthorizedIsPermanentAndNeverShowsTheKey() async throws {
        let server = try FakeHTTPServer { _ in ProviderStandIns.openAIUnauthorized }
        defer { server.stop() }
        let error = try #require(await failure { _ = try await openAI(server, key: "sk-wrong").embed(EmbeddingRequest(texts: ["a"])) })
        #expect(error.isAuthenticationFailure)
        #expect(!error.isRetryable)
        #expect(!error.description.contains("sk-wrong"))
    }

    @Test func serverErrorMalformedAndTruncatedAreRetryable() async throws {
        for (reply, check) in [
            (ProviderStandIns.openAIError(500, message: "The server had an error", type: "server_error", code: nil), "serverError"),
            (ProviderStandIns.malformed, "malformedResponse"),
            (ProviderStandIns.truncated, "truncatedResponse"),
        ] {
            let server = try FakeHTTPServer { _ in reply }
            defer { server.stop() }
            let error = try #require(await failure { _ = try await openAI(server).generateText(TextGenerationRequest(prompt: "x")) })
            #expect(error.isRetryable, "\(check): \(error)")
            #expect(String(describing: error).contains(check == "serverError" ? "HTTP 500" : check == "malformedResponse" ? "<html>" : "incomplete"),
                    "\(check): \(error)")
        }
    }

    @Test func aSlowAnswerTimesOut() async throws {
        let server = try FakeHTTPServer { _ in .hang }
        defer { server.stop() }
        let error = await failure { _ = try await openAI(server, timeout: 0.5).generateText(TextGenerationRequest(prompt: "x")) }
        #expect(error == .timeout(provider: "openai"))
    }

    @Test func embeddingsAreSentInBatchesAndReturnedInOrder() async throws {
        let server = try FakeHTTPServer { request in
            let json = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any]) ?? [:]
            let texts = json["input"] as? [String] ?? []
            return ProviderStandIns.openAIEmbeddings(texts.map { [Float($0.count), 1, 0] }, promptTokens: texts.count)
        }
        defer { server.stop() }
        let texts = ["a", "bb", "ccc", "dddd", "eeeee"]
        let embeddings = try await openAI(server, batch: 2).embed(EmbeddingRequest(texts: texts))
        #expect(embeddings.vectors.map { $0[0] } == [1, 2, 3, 4, 5])
        #expect(embeddings.dimensions == 3)
        #expect(embeddings.inputTokens == 5)
        #expect(server.requests.count == 3)
        #expect(server.requests.allSatisfy { $0.path == "/v1/embeddings" })
    }

    @Test func anImageComesBackAsPNG() async throws {
        let server = try FakeHTTPServer { _ in ProviderStandIns.openAIImage(ProviderStandIns.png, revisedPrompt: "a red dot") }
        defer { server.stop() }
        let image = try await openAI(server).generateImage(ImageRequest(prompt: "a dot", size: "256x256", model: "dall-e-2"))
        #expect(image.png == ProviderStandIns.png)
        #expect(image.revisedPrompt == "a red dot")
        #expect(server.requests.first?.path == "/v1/images/generations")
    }

    @Test func aContentPolicyViolationIsRefused() async throws {
        let server = try FakeHTTPServer { _ in
            ProviderStandIns.openAIError(400, message: "Your request was rejected as a result of our safety system.",
                                         type: "invalid_request_error", code: "content_policy_violation")
        }
        defer { server.stop() }
        let error = await failure { _ = try await openAI(server).generateImage(ImageRequest(prompt: "x")) }
        #expect(error == .refused(provider: "openai", reason: "Your request was rejected as a result of our safety system."))
    }

    @Test func anthropicSendsItsHeadersAndDecodesTheMessage() async throws {
        let server = try FakeHTTPServer { _ in ProviderStandIns.anthropicMessage("FADE IN:", inputTokens: 40, outputTokens: 3) }
        defer { server.stop() }
        let text = try await anthropic(server).generateText(TextGenerationRequest(prompt: "Begin", system: "Screenwriter", maxTokens: 10))
        #expect(text.text == "FADE IN:")
        #expect(text.inputTokens == 40)
        let request = try #require(server.requests.first)
        #expect(request.path == "/v1/messages")
        #expect(request.headers["x-api-key"] == Self.key)
        #expect(request.headers["anthropic-version"] == "2023-06-01")
        #expect(request.headers["authorization"] == nil)
        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(json["system"] as? String == "Screenwriter")
    }

    @Test func anthropicRateLimitAndOverload() async throws {
        let limited = try FakeHTTPServer { _ in
            ProviderStandIns.anthropicError(429, type: "rate_limit_error", message: "Number of requests has exceeded your rate limit",
                                            headers: [("retry-after", "4")])
        }
        defer { limited.stop() }
        #expect(await failure { _ = try await anthropic(limited).generateText(TextGenerationRequest(prompt: "x")) }
                == .rateLimited(provider: "anthropic", retryAfter: 4))
        let overloaded = try FakeHTTPServer { _ in ProviderStandIns.anthropicError(529, type: "overloaded_error", message: "Overloaded") }
        defer { overloaded.stop() }
        #expect(await failure { _ = try await anthropic(overloaded).generateText(TextGenerationRequest(prompt: "x")) }
                == .serverError(provider: "anthropic", status: 529, retryAfter: nil))
    }

    @Test func configurationFollowsTheSecretRule() {
        let values = ConfigurationValues(environment: ["OPENAI_BASE_URL": "http://127.0.0.1:11434/v1", "OPENAI_TEXT_MODEL": "llama3.2",
                                                       "ANTHROPIC_API_KEY": "k1", "ANTHROPIC_API_KEY_FILE": "/nonexistent"])
        let openAI = OpenAICompatibleProvider(configuration: .init(values: values))
        #expect(openAI.isConfigured)
        #expect(openAI.defaultModels[.text] == "llama3.2")
        #expect(openAI.configuration.baseURL == "http://127.0.0.1:11434")
        let anthropic = AnthropicProvider(configuration: .init(values: values))
        #expect(!anthropic.isConfigured, "both NAME and NAME_FILE set is an error")
    }

    @Test func theTokenCapFieldFollowsTheBaseURLUnlessTheVariableSaysOtherwise() {
        func field(_ environment: [String: String]) -> OpenAIWire.MaxTokensField {
            OpenAICompatibleProvider.Configuration(values: ConfigurationValues(environment: environment)).maxTokensField
        }
        #expect(field(["OPENAI_API_KEY": "k"]) == .maxCompletionTokens, "OpenAI's own API")
        #expect(field(["OPENAI_BASE_URL": "https://api.openai.com/v1"]) == .maxCompletionTokens)
        #expect(field(["OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"]) == .maxTokens, "a local server")
        #expect(field(["OPENAI_BASE_URL": "http://127.0.0.1:8000/v1", "OPENAI_MAX_TOKENS_FIELD": "max_completion_tokens"]) == .maxCompletionTokens)
        #expect(field(["OPENAI_API_KEY": "k", "OPENAI_MAX_TOKENS_FIELD": "max_tokens"]) == .maxTokens)
        let wrong = OpenAICompatibleProvider(configuration: .init(values: ConfigurationValues(environment: [
            "OPENAI_BASE_URL": "http://127.0.0.1:11434/v1", "OPENAI_MAX_TOKENS_FIELD": "max_new_tokens"])))
        #expect(!wrong.isConfigured)
        #expect(wrong.configurationHint.contains("OPENAI_MAX_TOKENS_FIELD"), "\(wrong.configurationHint)")
    }

    @Test func aReasoningModelGetsMaxCompletionTokensAndALocalServerMaxTokens() async throws {
        let reasoning = try FakeHTTPServer { ProviderStandIns.openAIReasoningChat($0.body, content: "Thought through.") }
        defer { reasoning.stop() }
        // What the old client sent to every server: refused by a reasoning model.
        let old = OpenAICompatibleProvider(configuration: .init(baseURL: reasoning.baseURL, apiKey: Secret(Self.key), maxTokensField: .maxTokens))
        let refused = await failure { _ = try await old.generateText(TextGenerationRequest(prompt: "Think", maxTokens: 300)) }
        guard case .rejected(provider: "openai", status: 400, let message)? = refused else {
            Issue.record("got \(String(describing: refused))"); return
        }
        #expect(message?.contains("max_completion_tokens") == true)
        let provider = OpenAICompatibleProvider(configuration: .init(baseURL: reasoning.baseURL, apiKey: Secret(Self.key),
                                                                     maxTokensField: .maxCompletionTokens))
        let text = try await provider.generateText(TextGenerationRequest(prompt: "Think", maxTokens: 300))
        #expect(text.text == "Thought through.")
        let last = try #require(reasoning.requests.last)
        let sent = try #require(try JSONSerialization.jsonObject(with: last.body) as? [String: Any])
        #expect(sent["max_completion_tokens"] as? Int == 300)
        #expect(sent["max_tokens"] == nil)

        let legacy = try FakeHTTPServer { ProviderStandIns.legacyChat($0.body, content: "Short.") }
        defer { legacy.stop() }
        let local = OpenAICompatibleProvider(configuration: .init(values: ConfigurationValues(environment: ["OPENAI_BASE_URL": legacy.baseURL + "/v1"])))
        #expect(try await local.generateText(TextGenerationRequest(prompt: "Hi", maxTokens: 30)).text == "Short.")
        let first = try #require(legacy.requests.first)
        let body = try #require(try JSONSerialization.jsonObject(with: first.body) as? [String: Any])
        #expect(body["max_tokens"] as? Int == 30)
        #expect(body["max_completion_tokens"] == nil)
    }
}
