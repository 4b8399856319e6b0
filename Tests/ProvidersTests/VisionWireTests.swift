import Foundation
import Testing
@testable import Providers

/// The vision request bodies and answer decoding of both wire formats, no server. The answers are
/// written from the APIs' documented shapes (chat completion with `message.content` /
/// `refusal`; Messages API `content` blocks with `tool_use`).
@Suite(.timeLimit(.minutes(1))) struct VisionWireTests {
    typealias F = VisionFixtures

    // MARK: OpenAI request

    @Test func openAIPutsThePromptThenOneDataURLPerImageAndTheSchemaInResponseFormat() throws {
        let request = F.request(images: [VisionImage(mediaType: "image/png", data: F.png), VisionImage(mediaType: "image/jpeg", data: F.jpeg)])
        let body = try OpenAIWire.visionBody(request, model: "gpt-4o-mini")
        let json = try F.object(body)
        #expect(json["model"] as? String == "gpt-4o-mini")
        #expect(json["max_tokens"] as? Int == 500)
        #expect(json["max_completion_tokens"] == nil)
        let messages = try #require(json["messages"] as? [[String: Any]])
        #expect(messages.count == 2)
        #expect(messages[0]["role"] as? String == "system")
        #expect(messages[0]["content"] as? String == "You catalogue books.")
        #expect(messages[1]["role"] as? String == "user")
        let parts = try #require(messages[1]["content"] as? [[String: Any]])
        #expect(parts.count == 3)
        #expect(parts[0]["type"] as? String == "text")
        #expect(parts[0]["text"] as? String == "List the books on the shelf.")
        #expect(parts[1]["type"] as? String == "image_url")
        #expect((parts[1]["image_url"] as? [String: Any])?["url"] as? String == "data:image/png;base64," + F.png.base64EncodedString())
        #expect((parts[2]["image_url"] as? [String: Any])?["url"] as? String == "data:image/jpeg;base64," + F.jpeg.base64EncodedString())
        let format = try #require(json["response_format"] as? [String: Any])
        #expect(format["type"] as? String == "json_schema")
        let schema = try #require(format["json_schema"] as? [String: Any])
        #expect(schema["name"] as? String == "shelf")
        #expect(schema["strict"] as? Bool == true)
        #expect((schema["schema"] as? [String: Any])?["additionalProperties"] as? Bool == false)
        // The schema is carried exactly: its number is not rounded through a Double.
        #expect(String(decoding: body, as: UTF8.self).contains(#""maximum":12345678901234567890"#))
    }

    @Test func openAIPutsTheCapInTheConfiguredFieldAndLeavesOutAnEmptySystem() throws {
        let json = try F.object(OpenAIWire.visionBody(F.request(system: ""), model: "gpt-4.1", field: .maxCompletionTokens))
        #expect(json["max_completion_tokens"] as? Int == 500)
        #expect(json["max_tokens"] == nil)
        let messages = try #require(json["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["user"])
    }

    @Test func openAISendsACorrectionAsTheAssistantsTurnAndAUserTurnAskingAgain() throws {
        let correction = VisionCorrection(answer: #"{"title":"Dune"}"#, error: "missing required property 'count'.")
        let json = try F.object(OpenAIWire.visionBody(F.request(correction: correction), model: "m"))
        let messages = try #require(json["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["system", "user", "assistant", "user"])
        #expect(messages[2]["content"] as? String == #"{"title":"Dune"}"#)
        #expect(messages[3]["content"] as? String
                == "That answer did not validate: missing required property 'count'. Answer again, only with JSON matching the schema.")
        #expect((messages[1]["content"] as? [[String: Any]])?.count == 2, "the images stay in the first user turn")
    }

    // MARK: Anthropic request

    @Test func anthropicPutsImageBlocksBeforeTheTextAndForcesTheSchemaTool() throws {
        let request = F.request(images: [VisionImage(mediaType: "image/webp", data: F.webp), VisionImage(mediaType: "image/png", data: F.png)])
        let body = try AnthropicWire.visionBody(request, model: "claude-sonnet-4-5")
        let json = try F.object(body)
        #expect(json["model"] as? String == "claude-sonnet-4-5")
        #expect(json["max_tokens"] as? Int == 500)
        #expect(json["system"] as? String == "You catalogue books.")
        let messages = try #require(json["messages"] as? [[String: Any]])
        #expect(messages.count == 1)
        #expect(messages[0]["role"] as? String == "user")
        let blocks = try #require(messages[0]["content"] as? [[String: Any]])
        #expect(blocks.map { $0["type"] as? String } == ["image", "image", "text"])
        let source = try #require(blocks[0]["source"] as? [String: String])
        #expect(source == ["type": "base64", "media_type": "image/webp", "data": F.webp.base64EncodedString()])
        #expect((blocks[1]["source"] as? [String: String])?["media_type"] == "image/png")
        #expect(blocks[2]["text"] as? String == "List the books on the shelf.")
        let tools = try #require(json["tools"] as? [[String: Any]])
        #expect(tools.count == 1)
        #expect(tools[0]["name"] as? String == "shelf")
        #expect((tools[0]["description"] as? String)?.isEmpty == false)
        #expect((tools[0]["input_schema"] as? [String: Any])?["type"] as? String == "object")
        #expect(json["tool_choice"] as? [String: String] == ["type": "tool", "name": "shelf"])
        #expect(json["response_format"] == nil)
        #expect(String(decoding: body, as: UTF8.self).contains(#""maximum":12345678901234567890"#))
    }

    @Test func anthropicSendsACorrectionAsTextTurns() throws {
        let correction = VisionCorrection(answer: "not json at all", error: "the answer is not JSON")
        let json = try F.object(AnthropicWire.visionBody(F.request(system: nil, correction: correction), model: "m"))
        #expect(json["system"] == nil)
        let messages = try #require(json["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["user", "assistant", "user"])
        #expect(messages[1]["content"] as? [[String: String]] == [["type": "text", "text": "not json at all"]])
        #expect(messages[2]["content"] as? [[String: String]] == [["type": "text", "text":
            "That answer did not validate: the answer is not JSON. Answer again, only with JSON matching the schema."]])
    }

    // MARK: OpenAI answers

    func chat(content: String?, refusal: String? = nil, finish: String = "stop", prompt: String = "1200", completion: String = "31") -> Data {
        let encodedContent = content.map { String(decoding: JSONValue.string($0).encoded(), as: UTF8.self) } ?? "null"
        let encodedRefusal = refusal.map { String(decoding: JSONValue.string($0).encoded(), as: UTF8.self) } ?? "null"
        return Data(#"""
        {"id":"chatcmpl-v1","object":"chat.completion","created":1764000000,"model":"gpt-4o-mini-2024-07-18",
         "choices":[{"index":0,"message":{"role":"assistant","content":\#(encodedContent),"refusal":\#(encodedRefusal)},"logprobs":null,"finish_reason":"\#(finish)"}],
         "usage":{"prompt_tokens":\#(prompt),"completion_tokens":\#(completion),"total_tokens":1231}}
        """#.utf8)
    }

    @Test func openAIAnswerIsTheContentExactlyAsReceived() throws {
        let content = #"{ "title": "Dune", "count": 12345678901234567890, "note": "caf\u00e9" }"#
        let answer = try OpenAIWire.decodeVision(chat(content: content), provider: "openai")
        #expect(answer.json == Data(content.utf8))
        #expect(answer == VisionAnswer(json: Data(content.utf8), model: "gpt-4o-mini-2024-07-18", inputTokens: 1200, outputTokens: 31, finishReason: "stop"))
    }

    @Test func openAIRefusalIsRefused() {
        #expect(throws: ProviderError.refused(provider: "openai", reason: "I can't identify people in images.")) {
            try OpenAIWire.decodeVision(chat(content: nil, refusal: "I can't identify people in images."), provider: "openai")
        }
        #expect(throws: ProviderError.refused(provider: "openai", reason: "the provider's content filter stopped the answer")) {
            try OpenAIWire.decodeVision(chat(content: "", finish: "content_filter"), provider: "openai")
        }
    }

    /// The `malformedResponse` reason `body` throws, or nil.
    func malformedReason(_ body: () throws(ProviderError) -> VisionAnswer) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            guard case .malformedResponse(_, let reason, _) = error else { return "unexpected \(error)" }
            return reason
        }
    }

    @Test func openAIContentThatIsNotAJSONObjectIsMalformed() {
        #expect(malformedReason { () throws(ProviderError) in try OpenAIWire.decodeVision(chat(content: "The shelf holds Dune."), provider: "openai") }?
            .contains("not JSON") == true)
        #expect(malformedReason { () throws(ProviderError) in try OpenAIWire.decodeVision(chat(content: #"["Dune"]"#), provider: "openai") }
                == "the answer is JSON but not an object")
        #expect(malformedReason { () throws(ProviderError) in try OpenAIWire.decodeVision(chat(content: nil), provider: "openai") }
                == "the message has no content")
        #expect(malformedReason { () throws(ProviderError) in try OpenAIWire.decodeVision(Data("<html>".utf8), provider: "openai") } == "not JSON")
        #expect(malformedReason { () throws(ProviderError) in
            try OpenAIWire.decodeVision(Data(#"{"model":"m","choices":[]}"#.utf8), provider: "openai")
        } == "no choices")
    }

    @Test func openAIAnswerCutAtTheTokenLimitNamesTruncation() throws {
        let reason = malformedReason { () throws(ProviderError) in
            try OpenAIWire.decodeVision(chat(content: #"{"title":"Du"#, finish: "length"), provider: "openai")
        }
        #expect(reason?.contains("cut off at the token limit") == true, "\(String(describing: reason))")
        // A complete object is an answer even when the cap was reached right after it.
        let complete = try OpenAIWire.decodeVision(chat(content: #"{"title":"Dune","count":1}"#, finish: "length"), provider: "openai")
        #expect(complete.finishReason == "length")
    }

    @Test(arguments: ["-5", "1099511627777", "9223372036854775807"])
    func openAINonsenseTokenCountsAreNotReported(count: String) throws {
        let answer = try OpenAIWire.decodeVision(chat(content: "{}", prompt: count, completion: count), provider: "openai")
        #expect(answer.inputTokens == nil && answer.outputTokens == nil)
    }

    // MARK: Anthropic answers

    func message(_ content: String, stop: String = "tool_use", input: String = "800", output: String = "57") -> Data {
        Data(#"""
        {"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":\#(content),
         "stop_reason":"\#(stop)","stop_sequence":null,"usage":{"input_tokens":\#(input),"output_tokens":\#(output)}}
        """#.utf8)
    }

    @Test func anthropicAnswerIsTheToolInputWithSortedKeysAndExactNumbers() throws {
        let content = #"""
        [{"type":"text","text":"Here is the catalogue."},
         {"type":"tool_use","id":"toolu_01","name":"shelf","input":{"title":"Dune \"Messiah\"\n","count":12345678901234567890,
          "ratio":1.50,"tiny":1e-400,"tags":["caf\u00e9","\ud83d\udcda"],"extra":{"z":null,"a":true}}}]
        """#
        let answer = try AnthropicWire.decodeVision(message(content), provider: "anthropic")
        let expected = #"{"count":12345678901234567890,"extra":{"a":true,"z":null},"ratio":1.50,"tags":["café","📚"],"tiny":1e-400,"title":"Dune \"Messiah\"\n"}"#
        #expect(String(decoding: answer.json, as: UTF8.self) == expected)
        #expect(answer.model == "claude-sonnet-4-5-20250929")
        #expect(answer.inputTokens == 800 && answer.outputTokens == 57)
        #expect(answer.finishReason == "tool_use")
    }

    @Test func anthropicRefusalIsRefused() {
        #expect(throws: ProviderError.refused(provider: "anthropic", reason: "I can't help with that.")) {
            try AnthropicWire.decodeVision(message(#"[{"type":"text","text":"I can't help with that."}]"#, stop: "refusal"), provider: "anthropic")
        }
    }

    @Test func anthropicWithoutAToolUseOrCutShortIsMalformed() {
        #expect(malformedReason { () throws(ProviderError) in
            try AnthropicWire.decodeVision(message(#"[{"type":"text","text":"Dune, Emma."}]"#, stop: "end_turn"), provider: "anthropic")
        } == "no tool_use block")
        #expect(malformedReason { () throws(ProviderError) in
            try AnthropicWire.decodeVision(message(#"[{"type":"text","text":"Dune"}]"#, stop: "max_tokens"), provider: "anthropic")
        }?.contains("token limit") == true)
        #expect(malformedReason { () throws(ProviderError) in
            try AnthropicWire.decodeVision(message(#"[{"type":"tool_use","id":"t","name":"shelf","input":{"title":"Du"}}]"#, stop: "max_tokens"),
                                           provider: "anthropic")
        }?.contains("cut off at the token limit") == true)
        #expect(malformedReason { () throws(ProviderError) in
            try AnthropicWire.decodeVision(message(#"[{"type":"tool_use","id":"t","name":"shelf","input":"Dune"}]"#), provider: "anthropic")
        } == "the tool_use block's input is not an object")
        #expect(malformedReason { () throws(ProviderError) in try AnthropicWire.decodeVision(Data("{}".utf8), provider: "anthropic") }?
            .contains("content") == true)
    }

    @Test func anthropicNonsenseTokenCountsAreNotReported() throws {
        let answer = try AnthropicWire.decodeVision(message(#"[{"type":"tool_use","id":"t","name":"s","input":{}}]"#, input: "-3", output: "2199023255552"),
                                                    provider: "anthropic")
        #expect(answer.inputTokens == nil && answer.outputTokens == nil)
        #expect(answer.json == Data("{}".utf8))
    }
}
