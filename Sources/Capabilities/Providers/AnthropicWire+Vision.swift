import Foundation

/// Vision over the Messages API: `image` blocks (base64) before the prompt's text, and the
/// schema as the one tool the model must call (`tool_choice: {type: "tool"}`); the answer is the
/// `tool_use` block's `input`. Pure: unit-tested without a server.
extension AnthropicWire {
    /// The longest image Anthropic takes, in characters of base64 (5 MB = 5,242,880: the API
    /// measures the encoded `data`, so an image file may have at most 3,932,160 bytes).
    public static let maxImageBase64Length = 5 << 20
    /// The largest request body the Messages API takes (32 MB).
    public static let maxRequestBytes = 32 << 20
    /// The forced tool's description.
    static let answerToolDescription = "Give your answer: call this tool once, with a JSON object matching its input schema."

    /// Throws ``ProviderError/invalidRequest(reason:)`` when a validated request is beyond
    /// Anthropic's own limits: an image over 5 MB of base64, or more image data than one
    /// request may carry (32 MB). Computed from the sizes, before anything is encoded.
    public static func checkVisionLimits(_ request: VisionRequest) throws(ProviderError) {
        var total = 0
        for (index, image) in request.images.enumerated() {
            guard image.base64Length <= maxImageBase64Length else {
                throw .invalidRequest(reason: "image \(index) is \(image.data.count) bytes (\(image.base64Length) in base64); "
                                      + "Anthropic takes at most \(maxImageBase64Length) characters of base64 per image")
            }
            total += image.base64Length  // at most 20 images of 5 MiB: no overflow
        }
        guard total <= maxRequestBytes else {
            throw .invalidRequest(reason: "\(total) characters of base64 images; an Anthropic request is at most \(maxRequestBytes) bytes")
        }
    }

    /// The body: `model`, `max_tokens`, `system` when set; one user turn of `image` blocks
    /// (`source: {type: "base64", media_type, data}`) then the prompt's `text` block; with a
    /// correction, the bad answer as the assistant's text and a user turn asking again; `tools`
    /// with one tool named ``VisionRequest/schemaName`` whose `input_schema` is the schema, and
    /// `tool_choice: {type: "tool", name}`. Throws when the body is over ``maxRequestBytes``.
    public static func visionBody(_ request: VisionRequest, model: String) throws(ProviderError) -> Data {
        let schema = try request.parsedSchema()
        let images: [JSONValue] = request.images.map { image in
            .object(["type": "image", "source": .object(["type": "base64", "media_type": .string(image.mediaType), "data": .string(image.base64)])])
        }
        var messages: [JSONValue] = [.object(["role": "user", "content": .array(images + [text(request.prompt)])])]
        if let correction = request.correction {
            messages.append(.object(["role": "assistant", "content": .array([text(correction.answer)])]))
            messages.append(.object(["role": "user", "content": .array([text(correction.retryPrompt)])]))
        }
        var body: [String: JSONValue] = [
            "model": .string(model),
            "max_tokens": .number(String(request.maxTokens)),
            "messages": .array(messages),
            "tools": .array([.object(["name": .string(request.schemaName), "description": .string(answerToolDescription), "input_schema": schema])]),
            "tool_choice": .object(["type": "tool", "name": .string(request.schemaName)]),
        ]
        if let system = request.system, !system.isEmpty { body["system"] = .string(system) }
        let encoded = JSONValue.object(body).encoded()
        guard encoded.count <= maxRequestBytes else {
            throw .invalidRequest(reason: "the request is \(encoded.count) bytes; an Anthropic request is at most \(maxRequestBytes)")
        }
        return encoded
    }

    private static func text(_ text: String) -> JSONValue {
        .object(["type": "text", "text": .string(text)])
    }

    /// Decodes a structured answer: the first `tool_use` block's `input`, which must be an object,
    /// written again as JSON with sorted keys (numbers as their literals). `stop_reason:
    /// "refusal"` is ``ProviderError/refused(provider:reason:)``; no `tool_use` block, or one cut
    /// at the token limit (`stop_reason: "max_tokens"`: its input may be incomplete), is
    /// ``ProviderError/malformedResponse(provider:reason:bodyPrefix:)``.
    public static func decodeVision(_ body: Data, provider: String) throws(ProviderError) -> VisionAnswer {
        let response: Response = try OpenAIWire.decode(Response.self, body, provider: provider)
        if response.stop_reason == "refusal" {
            let said = response.content.compactMap(\.text).joined()
            throw .refused(provider: provider, reason: said.isEmpty ? "the model declined to answer" : String(said.prefix(300)))
        }
        let truncated = response.stop_reason == "max_tokens"
        let blocks: [JSONValue]
        do {
            blocks = try JSONValue.parse(body).object?["content"]?.array ?? []
        } catch {
            throw .malformedResponse(provider: provider, reason: "not JSON (\(error))", bodyPrefix: ProviderError.prefix(of: body))
        }
        guard let toolUse = blocks.lazy.compactMap(\.object).first(where: { $0["type"] == "tool_use" }) else {
            throw .malformedResponse(provider: provider,
                                     reason: truncated ? "no tool_use block: cut off at the token limit (stop_reason max_tokens)" : "no tool_use block",
                                     bodyPrefix: ProviderError.prefix(of: body))
        }
        guard !truncated else {
            throw .malformedResponse(provider: provider, reason: "the tool call was cut off at the token limit (stop_reason max_tokens)",
                                     bodyPrefix: ProviderError.prefix(of: body))
        }
        guard let input = toolUse["input"], input.object != nil else {
            throw .malformedResponse(provider: provider, reason: "the tool_use block's input is not an object", bodyPrefix: ProviderError.prefix(of: body))
        }
        return VisionAnswer(json: input.encoded(), model: response.model ?? "", inputTokens: OpenAIWire.tokenCount(response.usage?.input_tokens),
                            outputTokens: OpenAIWire.tokenCount(response.usage?.output_tokens), finishReason: response.stop_reason)
    }
}
