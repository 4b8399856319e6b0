import Foundation
import Testing
@testable import Providers

/// Request bodies and response decoding of the OpenAI and Anthropic wire formats, no server.
@Suite(.timeLimit(.minutes(1))) struct WireFormatTests {
    func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func chatBodyPutsTheSystemPromptFirstAndKeepsTheFields() throws {
        let request = TextGenerationRequest(system: "Be brief.", messages: [
            ChatMessage(role: .user, content: "Hi"), ChatMessage(role: .assistant, content: "Hello"), ChatMessage(role: .user, content: "Bye"),
        ], maxTokens: 50, temperature: 0.2)
        let json = try object(OpenAIWire.chatBody(request, model: "llama3.2"))
        #expect(json["model"] as? String == "llama3.2")
        #expect(json["max_tokens"] as? Int == 50)
        #expect(json["temperature"] as? Double == 0.2)
        let messages = try #require(json["messages"] as? [[String: String]])
        #expect(messages == [["role": "system", "content": "Be brief."], ["role": "user", "content": "Hi"],
                             ["role": "assistant", "content": "Hello"], ["role": "user", "content": "Bye"]])
    }

    @Test func chatBodyPutsTheCapInTheFieldAsked() throws {
        let request = TextGenerationRequest(prompt: "Hi", maxTokens: 77)
        let modern = try object(OpenAIWire.chatBody(request, model: "o4-mini", field: .maxCompletionTokens))
        #expect(modern["max_completion_tokens"] as? Int == 77)
        #expect(modern["max_tokens"] == nil, "OpenAI's reasoning models reject max_tokens")
        let legacy = try object(OpenAIWire.chatBody(request, model: "llama3.2", field: .maxTokens))
        #expect(legacy["max_tokens"] as? Int == 77)
        #expect(legacy["max_completion_tokens"] == nil)
    }

    @Test func chatBodyLeavesOutAnUnsetTemperatureAndEmptySystem() throws {
        let json = try object(OpenAIWire.chatBody(TextGenerationRequest(prompt: "Hi", system: ""), model: "m"))
        #expect(json["temperature"] == nil)
        #expect((json["messages"] as? [[String: String]])?.count == 1)
    }

    @Test func anthropicBodyHasSystemApartAndMaxTokens() throws {
        let json = try object(AnthropicWire.messagesBody(TextGenerationRequest(prompt: "Hi", system: "Be brief.", maxTokens: 64), model: "claude-x"))
        #expect(json["model"] as? String == "claude-x")
        #expect(json["system"] as? String == "Be brief.")
        #expect(json["max_tokens"] as? Int == 64)
        #expect(json["messages"] as? [[String: String]] == [["role": "user", "content": "Hi"]])
    }

    @Test func embeddingsAndImageBodies() throws {
        let embed = try object(OpenAIWire.embeddingsBody(["a", "b"], model: "nomic-embed-text"))
        #expect(embed["input"] as? [String] == ["a", "b"])
        #expect(embed["encoding_format"] as? String == "float")
        let dalle = try object(OpenAIWire.imageBody(ImageRequest(prompt: "a cat", size: "512x512"), model: "dall-e-2"))
        #expect(dalle["response_format"] as? String == "b64_json")
        #expect(dalle["size"] as? String == "512x512")
        #expect(dalle["n"] as? Int == 1)
        let gpt = try object(OpenAIWire.imageBody(ImageRequest(prompt: "a cat"), model: "gpt-image-1"))
        #expect(gpt["response_format"] == nil, "GPT image models reject response_format")
        #expect(gpt["output_format"] as? String == "png")
    }

    @Test func decodesAChatCompletionWithUsage() throws {
        let body = #"{"id":"x","object":"chat.completion","model":"gpt-4o-mini-2024","choices":[{"index":0,"message":{"role":"assistant","content":"Hello there","refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}"#
        let text = try OpenAIWire.decodeChat(Data(body.utf8), provider: "openai")
        #expect(text == GeneratedText(text: "Hello there", model: "gpt-4o-mini-2024", inputTokens: 5, outputTokens: 2, finishReason: "stop"))
    }

    @Test func aRefusalOrContentFilterIsRefused() throws {
        let refusal = #"{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}"#
        #expect(throws: ProviderError.refused(provider: "openai", reason: "I can't help with that.")) {
            try OpenAIWire.decodeChat(Data(refusal.utf8), provider: "openai")
        }
        let filtered = #"{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"content_filter"}]}"#
        #expect(throws: ProviderError.self) { try OpenAIWire.decodeChat(Data(filtered.utf8), provider: "openai") }
        let anthropic = #"{"type":"message","model":"c","content":[],"stop_reason":"refusal","usage":{"input_tokens":3,"output_tokens":0}}"#
        #expect(throws: ProviderError.refused(provider: "anthropic", reason: "the model declined to answer")) {
            try AnthropicWire.decodeMessage(Data(anthropic.utf8), provider: "anthropic")
        }
    }

    @Test func decodesAnAnthropicMessageJoiningTextBlocks() throws {
        let body = #"{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Hello "},{"type":"text","text":"world"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":3}}"#
        let text = try AnthropicWire.decodeMessage(Data(body.utf8), provider: "anthropic")
        #expect(text == GeneratedText(text: "Hello world", model: "claude-x", inputTokens: 10, outputTokens: 3, finishReason: "end_turn"))
    }

    @Test func embeddingsAreOrderedByIndexAndChecked() throws {
        let body = #"{"object":"list","model":"e","data":[{"object":"embedding","index":1,"embedding":[3,4]},{"object":"embedding","index":0,"embedding":[1,2]}],"usage":{"prompt_tokens":4,"total_tokens":4}}"#
        let embeddings = try OpenAIWire.decodeEmbeddings(Data(body.utf8), expected: 2, provider: "openai")
        #expect(embeddings.vectors == [[1, 2], [3, 4]])
        #expect(embeddings.dimensions == 2)
        #expect(embeddings.inputTokens == 4)
        #expect(throws: ProviderError.self) { try OpenAIWire.decodeEmbeddings(Data(body.utf8), expected: 3, provider: "openai") }
        let ragged = #"{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[3]}]}"#
        #expect(throws: ProviderError.self) { try OpenAIWire.decodeEmbeddings(Data(ragged.utf8), expected: 2, provider: "openai") }
    }

    @Test func anImageMustBeBase64PNG() throws {
        let png = Data(GeneratedImage.pngSignature + [1, 2, 3])
        let good = #"{"created":1,"data":[{"b64_json":"\#(png.base64EncodedString())","revised_prompt":"a red cat"}]}"#
        let image = try OpenAIWire.decodeImage(Data(good.utf8), model: "dall-e-3", provider: "openai")
        #expect(image.png == png)
        #expect(image.revisedPrompt == "a red cat")
        let jpeg = #"{"data":[{"b64_json":"\#(Data([0xFF, 0xD8, 0xFF, 0xE0]).base64EncodedString())"}]}"#
        #expect(throws: ProviderError.self) { try OpenAIWire.decodeImage(Data(jpeg.utf8), model: "m", provider: "openai") }
        let url = #"{"data":[{"url":"https://example.com/x.png"}]}"#
        do {
            _ = try OpenAIWire.decodeImage(Data(url.utf8), model: "m", provider: "openai")
            Issue.record("a URL answer must not decode")
        } catch {
            guard case .malformedResponse(_, let reason, _) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("URL"))
        }
    }

    @Test func malformedJSONKeepsTheBodysFirstBytes() {
        let body = Data(("<html><head><title>502 Bad Gateway</title></head>" + String(repeating: "x", count: 1000)).utf8)
        do {
            _ = try OpenAIWire.decodeChat(body, provider: "openai")
            Issue.record("HTML must not decode")
        } catch {
            guard case .malformedResponse(let provider, _, let prefix) = error else { Issue.record("\(error)"); return }
            #expect(provider == "openai")
            #expect(prefix.hasPrefix("<html><head><title>502 Bad Gateway"))
            #expect(prefix.count == ProviderError.bodyPrefixLimit)
            #expect(error.isRetryable)
        }
    }

    @Test func requestsAreValidatedBeforeSending() {
        #expect(throws: ProviderError.self) { try TextGenerationRequest(messages: []).validate() }
        #expect(throws: ProviderError.self) { try TextGenerationRequest(prompt: "  ").validate() }
        #expect(throws: ProviderError.self) { try TextGenerationRequest(prompt: "hi", temperature: 3).validate() }
        #expect(throws: ProviderError.self) { try EmbeddingRequest(texts: []).validate() }
        #expect(throws: ProviderError.self) { try ImageRequest(prompt: "cat", size: "big").validate() }
        #expect(throws: Never.self) { try ImageRequest(prompt: "cat", size: "256x256").validate() }
    }

    @Test func baseURLsWithOrWithoutV1AreTheSame() {
        #expect(ProviderHTTPTransport.normalizedBase("http://127.0.0.1:11434/v1") == "http://127.0.0.1:11434")
        #expect(ProviderHTTPTransport.normalizedBase("http://127.0.0.1:11434/v1/") == "http://127.0.0.1:11434")
        #expect(ProviderHTTPTransport.normalizedBase("https://api.openai.com") == "https://api.openai.com")
    }
}
