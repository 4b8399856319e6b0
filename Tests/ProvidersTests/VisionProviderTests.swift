import Foundation
import RepartoConfiguration
import RepartoTestSupport
import Testing
@testable import Providers

/// Both providers' `describeImages` against ``VisionStandIn`` (one local port speaking both wire
/// formats): answers chosen by image, corrections, refusals, 429 with Retry-After, and the
/// requests the stand-in refuses as the real APIs do.
@Suite(.timeLimit(.minutes(2))) struct VisionProviderTests {
    typealias F = VisionFixtures
    static let key = "sk-vision-SECRET-789"

    func openAI(_ standIn: VisionStandIn) -> OpenAICompatibleProvider {
        OpenAICompatibleProvider(configuration: .init(baseURL: standIn.baseURL + "/v1", apiKey: Secret(Self.key), textModel: "gpt-4o-mini", timeout: StandInTimeout.seconds))
    }

    func anthropic(_ standIn: VisionStandIn) -> AnthropicProvider {
        AnthropicProvider(configuration: .init(baseURL: standIn.baseURL, apiKey: Secret(Self.key), visionModel: "claude-vision-test", timeout: StandInTimeout.seconds))
    }

    /// The ``ProviderError`` `body` throws; nil (and a recorded issue) when it throws nothing.
    func failure(_ body: () async throws(ProviderError) -> VisionAnswer) async -> ProviderError? {
        do {
            _ = try await body()
            Issue.record("expected a ProviderError")
            return nil
        } catch {
            return error
        }
    }

    static let shelf = Data(#"{"count":12345678901234567890,"title":"Dune"}"#.utf8)  // keys sorted, as Anthropic's answers are written
    static let png = VisionImage(mediaType: "image/png", data: F.png)
    static let jpeg = VisionImage(mediaType: "image/jpeg", data: F.jpeg)

    @Test func bothFormatsAnswerByTheFirstImageWithUsage() async throws {
        let standIn = try VisionStandIn(answers: [VisionStandIn.sha256Hex(F.png): [.object(Self.shelf)]],
                                        default: .object(Data(#"{"title":"unknown"}"#.utf8)))
        defer { standIn.stop() }
        let request = F.request(images: [Self.png, Self.jpeg])

        let fromOpenAI = try await openAI(standIn).describeImages(request)
        #expect(fromOpenAI.json == Self.shelf)
        #expect(fromOpenAI.model == "gpt-4o-mini", "the vision model defaults to the text model")
        #expect(fromOpenAI.inputTokens == 2 * VisionStandIn.inputTokensPerImage + VisionStandIn.inputTokensForText)
        #expect(fromOpenAI.outputTokens == VisionStandIn.outputTokens)

        let fromAnthropic = try await anthropic(standIn).describeImages(request)
        #expect(fromAnthropic.json == Self.shelf, "already sorted: the tool input comes back byte for byte")
        #expect(fromAnthropic.model == "claude-vision-test")
        #expect(fromAnthropic.finishReason == "tool_use")
        #expect(fromAnthropic.inputTokens == 2 * VisionStandIn.inputTokensPerImage + VisionStandIn.inputTokensForText)

        let other = try await anthropic(standIn).describeImages(F.request(images: [Self.jpeg]))
        #expect(other.json == Data(#"{"title":"unknown"}"#.utf8), "an image not in the table gets the default")

        let digests = [VisionStandIn.sha256Hex(F.png), VisionStandIn.sha256Hex(F.jpeg)]
        #expect(standIn.requests == [
            .init(path: "/v1/chat/completions", format: .openAI, imageDigests: digests, correction: false, rejection: nil),
            .init(path: "/v1/messages", format: .anthropic, imageDigests: digests, correction: false, rejection: nil),
            .init(path: "/v1/messages", format: .anthropic, imageDigests: [digests[1]], correction: false, rejection: nil),
        ])
    }

    @Test func theSHA256IsTheStandardOne() {
        #expect(VisionStandIn.sha256Hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(VisionStandIn.sha256Hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(VisionStandIn.sha256Hex(Data(repeating: 0x61, count: 1_000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test(arguments: [VisionStandIn.Format.openAI, .anthropic])
    func aMalformedAnswerThenACorrectionThatValidates(format: VisionStandIn.Format) async throws {
        let standIn = try VisionStandIn(answers: [VisionStandIn.sha256Hex(F.png): [.malformed("Dune, by Frank Herbert"), .object(Self.shelf)]])
        defer { standIn.stop() }
        let provider: any VisionProvider = format == .openAI ? openAI(standIn) : anthropic(standIn)
        let first = await failure { () async throws(ProviderError) in try await provider.describeImages(F.request()) }
        guard case .malformedResponse(_, let reason, _)? = first else { Issue.record("got \(String(describing: first))"); return }
        #expect(reason.contains(format == .openAI ? "not JSON" : "no tool_use block"))
        #expect(first?.isRetryable == true)
        let retried = try await provider.describeImages(F.request(correction: VisionCorrection(answer: "Dune, by Frank Herbert", error: "not JSON")))
        #expect(retried.json == Self.shelf)
        #expect(standIn.requests.map(\.correction) == [false, true])
        #expect(standIn.requests.allSatisfy { $0.format == format })
    }

    @Test(arguments: [VisionStandIn.Format.openAI, .anthropic])
    func refusalsRateLimitsAndServerErrorsMapAsForText(format: VisionStandIn.Format) async throws {
        let standIn = try VisionStandIn(answers: [
            VisionStandIn.sha256Hex(F.png): [.refusal("I can't identify people."), .rateLimited(retryAfter: 3), .status(503, message: "busy")],
        ])
        defer { standIn.stop() }
        let provider: any VisionProvider = format == .openAI ? openAI(standIn) : anthropic(standIn)
        let id = provider.id
        #expect(await failure { () async throws(ProviderError) in try await provider.describeImages(F.request()) }
                == .refused(provider: id, reason: "I can't identify people."))
        #expect(await failure { () async throws(ProviderError) in try await provider.describeImages(F.request()) }
                == .rateLimited(provider: id, retryAfter: 3))
        #expect(await failure { () async throws(ProviderError) in try await provider.describeImages(F.request()) }
                == .serverError(provider: id, status: 503, retryAfter: nil))
        #expect(await failure { () async throws(ProviderError) in try await provider.describeImages(F.request()) }
                == .serverError(provider: id, status: 503, retryAfter: nil), "the last answer repeats")
    }

    @Test func anInvalidRequestOrOneOverTheProvidersLimitSendsNothing() async throws {
        let standIn = try VisionStandIn()
        defer { standIn.stop() }
        let overAnthropic = F.request(images: [VisionImage(mediaType: "image/png", data: F.pngOfSize(4_000_000))])
        guard case .invalidRequest(let reason)? = await failure({ () async throws(ProviderError) in try await anthropic(standIn).describeImages(overAnthropic) })
        else { Issue.record("expected invalidRequest"); return }
        #expect(reason.contains("Anthropic"))
        #expect(await failure { () async throws(ProviderError) in try await openAI(standIn).describeImages(F.request(images: [])) }
                == .invalidRequest(reason: "no images"))
        #expect(standIn.requests.isEmpty)
        // The same image is within OpenAI's 20 MB.
        _ = try await openAI(standIn).describeImages(overAnthropic)
        #expect(standIn.requests.count == 1)
    }

    // MARK: the stand-in refuses what the APIs refuse

    func post(_ standIn: VisionStandIn, _ path: String, _ body: String) async -> ProviderError? {
        let transport = ProviderHTTPTransport(provider: "raw", client: .shared, timeout: StandInTimeout.seconds)
        do {
            _ = try await transport.postJSON(url: standIn.baseURL + path, headers: [], body: Data(body.utf8), secret: nil)
            Issue.record("expected a refusal")
            return nil
        } catch {
            return error
        }
    }

    static let responseFormat = #""response_format":{"type":"json_schema","json_schema":{"name":"s","strict":true,"schema":{"type":"object"}}}"#
    static let tools = #""tools":[{"name":"s","description":"d","input_schema":{"type":"object"}}],"tool_choice":{"type":"tool","name":"s"}"#

    @Test func theStandInRefusesMissingUndecodableAndNonImageParts() async throws {
        let standIn = try VisionStandIn()
        defer { standIn.stop() }
        let text = #"{"type":"text","text":"What is this?"}"#
        let notAnImage = Data("just text".utf8).base64EncodedString()
        let cases: [(path: String, body: String, expected: String)] = [
            ("/v1/chat/completions", #"{"model":"m",\#(Self.responseFormat),"messages":[{"role":"user","content":[\#(text)]}]}"#, "no image part"),
            ("/v1/chat/completions", #"{"model":"m",\#(Self.responseFormat),"messages":[{"role":"user","content":[\#(text),{"type":"image_url","image_url":{"url":"data:image/png;base64,@@@"}}]}]}"#,
             "does not decode"),
            ("/v1/chat/completions", #"{"model":"m",\#(Self.responseFormat),"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}]}"#,
             "not a base64 data URL"),
            ("/v1/chat/completions", #"{"model":"m",\#(Self.responseFormat),"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,\#(notAnImage)"}}]}]}"#,
             "not a JPEG, PNG or WebP"),
            ("/v1/chat/completions", #"{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,\#(F.png.base64EncodedString())"}}]}]}"#,
             "response_format"),
            ("/v1/messages", #"{"model":"m","max_tokens":10,\#(Self.tools),"messages":[{"role":"user","content":[\#(text)]}]}"#, "no image part"),
            ("/v1/messages", #"{"model":"m","max_tokens":10,\#(Self.tools),"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"%%%"}}]}]}"#,
             "does not decode"),
            ("/v1/messages", #"{"model":"m","max_tokens":10,\#(Self.tools),"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"\#(notAnImage)"}}]}]}"#,
             "not a JPEG, PNG or WebP"),
            ("/v1/messages", #"{"model":"m","max_tokens":10,\#(Self.tools),"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"\#(F.jpeg.base64EncodedString())"}}]}]}"#,
             "not image/png"),
        ]
        for (path, body, expected) in cases {
            let error = await post(standIn, path, body)
            guard case .rejected(provider: "raw", status: 400, let message)? = error else { Issue.record("\(expected): got \(String(describing: error))"); continue }
            #expect(message?.contains(expected) == true, "\(expected): \(String(describing: message))")
        }
        #expect(standIn.requests.count == cases.count)
        #expect(standIn.requests.allSatisfy { $0.rejection != nil })
        #expect(standIn.requests.last?.imageDigests == [VisionStandIn.sha256Hex(F.jpeg)])
    }

    // MARK: registry and configuration

    struct TextOnly: TextProvider {
        var id: String { "text-only" }
        var displayName: String { "Text only" }
        var capabilities: Set<ProviderCapability> { [.text] }
        var defaultModels: [ProviderCapability: String] { [:] }
        var isConfigured: Bool { true }
        var configurationHint: String { "" }
        func generateText(_ request: TextGenerationRequest) async throws(ProviderError) -> GeneratedText {
            GeneratedText(text: "", model: "", inputTokens: nil, outputTokens: nil, finishReason: nil)
        }
    }

    @Test func theRegistryFindsVisionProvidersAndRefusesOthers() throws {
        let registry = GenerationProviderRegistry.standard(values: ConfigurationValues(environment: [
            "OPENAI_BASE_URL": "http://127.0.0.1:11434/v1", "ANTHROPIC_API_KEY": "k"]))
        #expect(try registry.visionProvider("openai").id == "openai")
        #expect(try registry.visionProvider("anthropic").id == "anthropic")
        #expect(registry.firstConfigured(.vision)?.id == "openai")
        let withTextOnly = GenerationProviderRegistry([TextOnly()])
        #expect(throws: ProviderError.unsupported(provider: "text-only", capability: .vision)) { try withTextOnly.visionProvider("text-only") }
        #expect(ProviderError.unsupported(provider: "text-only", capability: .vision).description.contains("vision"))
        #expect(throws: ProviderError.unknownProvider("nobody")) { try registry.visionProvider("nobody") }
    }

    @Test func visionModelsDefaultToTheTextModelsUnlessSet() {
        let defaults = ConfigurationValues(environment: ["OPENAI_TEXT_MODEL": "llava", "ANTHROPIC_MODEL": "claude-x", "ANTHROPIC_API_KEY": "k"])
        let openAI = OpenAICompatibleProvider(configuration: .init(values: defaults))
        let anthropic = AnthropicProvider(configuration: .init(values: defaults))
        #expect(openAI.capabilities.contains(.vision) && anthropic.capabilities.contains(.vision))
        #expect(openAI.defaultModels[.vision] == "llava")
        #expect(anthropic.defaultModels[.vision] == "claude-x")
        let set = ConfigurationValues(environment: ["OPENAI_VISION_MODEL": "gpt-4.1", "ANTHROPIC_VISION_MODEL": "claude-opus-4-1"])
        #expect(OpenAICompatibleProvider(configuration: .init(values: set)).defaultModels[.vision] == "gpt-4.1")
        #expect(AnthropicProvider(configuration: .init(values: set)).defaultModels[.vision] == "claude-opus-4-1")
        #expect(OpenAICompatibleProvider(configuration: .init(apiKey: nil)).defaultModels[.vision] == "gpt-4o-mini")
    }
}
