import Foundation

/// Replies in the wire formats of the OpenAI API (chat completions, embeddings, images with
/// `b64_json`) and of the Anthropic Messages API, including their error bodies, for
/// ``FakeHTTPServer`` stand-ins. Test code only: never part of the shipped binary.
public enum ProviderStandIns {
    static let json = [("Content-Type", "application/json")]

    static func reply(_ status: Int, _ object: Any, headers: [(String, String)] = []) -> FakeHTTPServer.Reply {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return .respond(status: status, headers: json + headers, body: body)
    }

    // MARK: OpenAI

    /// A `chat.completion` with one choice.
    public static func openAIChat(_ content: String, model: String = "gpt-4o-mini", promptTokens: Int = 12, completionTokens: Int = 7,
                                  finishReason: String = "stop", refusal: String? = nil) -> FakeHTTPServer.Reply {
        var message: [String: Any] = ["role": "assistant", "content": refusal == nil ? content : NSNull()]
        message["refusal"] = refusal ?? NSNull()
        return reply(200, [
            "id": "chatcmpl-standin", "object": "chat.completion", "created": 1_764_000_000, "model": model,
            "choices": [["index": 0, "message": message, "logprobs": NSNull(), "finish_reason": finishReason]],
            "usage": ["prompt_tokens": promptTokens, "completion_tokens": completionTokens, "total_tokens": promptTokens + completionTokens],
        ])
    }

    /// A chat completion as OpenAI's reasoning models (o-series) answer it: a request that caps
    /// tokens with the deprecated `max_tokens` gets 400 `unsupported_parameter`, one with
    /// `max_completion_tokens` a completion. `request` is the received body.
    public static func openAIReasoningChat(_ request: Data, content: String, model: String = "o4-mini") -> FakeHTTPServer.Reply {
        let json = (try? JSONSerialization.jsonObject(with: request) as? [String: Any]) ?? [:]
        if json["max_tokens"] != nil {
            return reply(400, ["error": [
                "message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"]])
        }
        return openAIChat(content, model: model, promptTokens: 9, completionTokens: 4)
    }

    /// A chat completion as a server that knows only `max_tokens` answers it (older Ollama,
    /// llama.cpp's server): the cap is required here, so a request without it is a 400
    /// instead of an answer that silently runs unbounded.
    public static func legacyChat(_ request: Data, content: String, model: String = "llama3.2") -> FakeHTTPServer.Reply {
        let json = (try? JSONSerialization.jsonObject(with: request) as? [String: Any]) ?? [:]
        guard json["max_tokens"] is Int else {
            return reply(400, ["error": ["message": "max_tokens is required by this stand-in", "type": "invalid_request_error",
                                         "param": "max_tokens", "code": NSNull()]])
        }
        return openAIChat(content, model: model)
    }

    /// An embeddings `list`; `vectors` in order, sent in reverse to check that clients sort by `index`.
    public static func openAIEmbeddings(_ vectors: [[Float]], model: String = "text-embedding-3-small", promptTokens: Int = 8) -> FakeHTTPServer.Reply {
        let data = vectors.enumerated().reversed().map { index, vector -> [String: Any] in
            ["object": "embedding", "index": index, "embedding": vector.map { Double($0) }]
        }
        return reply(200, ["object": "list", "data": data, "model": model,
                           "usage": ["prompt_tokens": promptTokens, "total_tokens": promptTokens]])
    }

    /// An images response with one `b64_json` image.
    public static func openAIImage(_ png: Data, revisedPrompt: String? = nil) -> FakeHTTPServer.Reply {
        var item: [String: Any] = ["b64_json": png.base64EncodedString()]
        if let revisedPrompt { item["revised_prompt"] = revisedPrompt }
        return reply(200, ["created": 1_764_000_000, "data": [item]])
    }

    /// An OpenAI error: `{"error":{"message","type","param","code"}}`.
    public static func openAIError(_ status: Int, message: String, type: String, code: String?, headers: [(String, String)] = []) -> FakeHTTPServer.Reply {
        reply(status, ["error": ["message": message, "type": type, "param": NSNull(), "code": code.map { $0 as Any } ?? NSNull()]], headers: headers)
    }

    /// 429 `rate_limit_exceeded` with `Retry-After` in seconds.
    public static func openAIRateLimited(retryAfter: Int) -> FakeHTTPServer.Reply {
        openAIError(429, message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded",
                    headers: [("Retry-After", "\(retryAfter)")])
    }

    /// 401 `invalid_api_key`.
    public static var openAIUnauthorized: FakeHTTPServer.Reply {
        openAIError(401, message: "Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.",
                    type: "invalid_request_error", code: "invalid_api_key")
    }

    // MARK: Anthropic

    /// A `message` with one text block.
    public static func anthropicMessage(_ text: String, model: String = "claude-sonnet-4-5", inputTokens: Int = 21, outputTokens: Int = 9,
                                        stopReason: String = "end_turn") -> FakeHTTPServer.Reply {
        reply(200, [
            "id": "msg_standin", "type": "message", "role": "assistant", "model": model,
            "content": [["type": "text", "text": text]],
            "stop_reason": stopReason, "stop_sequence": NSNull(),
            "usage": ["input_tokens": inputTokens, "output_tokens": outputTokens],
        ])
    }

    /// An Anthropic error: `{"type":"error","error":{"type","message"},"request_id"}`.
    public static func anthropicError(_ status: Int, type: String, message: String, headers: [(String, String)] = []) -> FakeHTTPServer.Reply {
        reply(status, ["type": "error", "error": ["type": type, "message": message], "request_id": "req_standin"], headers: headers)
    }

    // MARK: bodies that are not what the API promised

    /// A 200 whose body is an HTML page (a proxy's), not JSON.
    public static var malformed: FakeHTTPServer.Reply {
        .respond(status: 200, headers: [("Content-Type", "text/html")], body: Data("<html><body>Bad gateway</body></html>".utf8))
    }

    /// A 200 announcing more JSON than it sends.
    public static var truncated: FakeHTTPServer.Reply {
        .truncated(status: 200, headers: json, declaredLength: 400, body: Data(#"{"id":"chatcmpl-standin","choices":[{"index":0,"#.utf8))
    }

    /// A tiny valid PNG (1×1, one red pixel).
    public static let png: Data = Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")!
}
