import Foundation

/// Vision over chat completions: image content parts (base64 data URLs) and a structured answer
/// (`response_format` `json_schema`, strict). Pure: unit-tested without a server.
extension OpenAIWire {
    /// The largest image OpenAI takes, in bytes (20 MB).
    public static let maxVisionImageBytes = 20 << 20
    /// The most image bytes OpenAI takes in one request (50 MB).
    public static let maxVisionRequestImageBytes = 50 << 20

    /// Throws ``ProviderError/invalidRequest(reason:)`` when a validated request is beyond
    /// OpenAI's own limits: an image over 20 MB, or over 50 MB of images in all.
    public static func checkVisionLimits(_ request: VisionRequest) throws(ProviderError) {
        var total = 0
        for (index, image) in request.images.enumerated() {
            guard image.data.count <= maxVisionImageBytes else {
                throw .invalidRequest(reason: "image \(index) is \(image.data.count) bytes; OpenAI takes at most \(maxVisionImageBytes) per image")
            }
            total += image.data.count  // at most 20 images of 20 MiB: no overflow
        }
        guard total <= maxVisionRequestImageBytes else {
            throw .invalidRequest(reason: "\(total) bytes of images; OpenAI takes at most \(maxVisionRequestImageBytes) in one request")
        }
    }

    /// `POST {base}/v1/chat/completions`: the system prompt first; one user turn whose content is
    /// the prompt's `text` part then one `image_url` part per image (`data:<type>;base64,…`); with
    /// a correction, the bad answer as the assistant's turn and a user turn asking again; the
    /// token cap in `field`; `response_format: {type: "json_schema", json_schema: {name, schema,
    /// strict: true}}`. Keys sorted; the schema is carried exactly (its numbers as written).
    public static func visionBody(_ request: VisionRequest, model: String, field: MaxTokensField = .maxTokens) throws(ProviderError) -> Data {
        let schema = try request.parsedSchema()
        var messages: [JSONValue] = []
        if let system = request.system, !system.isEmpty { messages.append(.object(["role": "system", "content": .string(system)])) }
        let parts: [JSONValue] = [.object(["type": "text", "text": .string(request.prompt)])]
            + request.images.map { .object(["type": "image_url", "image_url": .object(["url": .string($0.dataURL)])]) }
        messages.append(.object(["role": "user", "content": .array(parts)]))
        if let correction = request.correction {
            messages.append(.object(["role": "assistant", "content": .string(correction.answer)]))
            messages.append(.object(["role": "user", "content": .string(correction.retryPrompt)]))
        }
        let body: [String: JSONValue] = [
            "model": .string(model),
            "messages": .array(messages),
            field.rawValue: .number(String(request.maxTokens)),
            "response_format": .object([
                "type": "json_schema",
                "json_schema": .object(["name": .string(request.schemaName), "schema": schema, "strict": .bool(true)]),
            ]),
        ]
        return JSONValue.object(body).encoded()
    }

    /// Decodes a structured answer: `choices[0].message.content` must be one JSON object, returned
    /// as its bytes unchanged. A `refusal` or a `content_filter` finish is
    /// ``ProviderError/refused(provider:reason:)``; content that is not a JSON object is
    /// ``ProviderError/malformedResponse(provider:reason:bodyPrefix:)`` (naming truncation when
    /// `finish_reason` is `length`), with the content's first characters.
    public static func decodeVision(_ body: Data, provider: String) throws(ProviderError) -> VisionAnswer {
        let response: ChatResponse = try decode(ChatResponse.self, body, provider: provider)
        guard let choice = response.choices.first else {
            throw .malformedResponse(provider: provider, reason: "no choices", bodyPrefix: ProviderError.prefix(of: body))
        }
        if let refusal = choice.message.refusal {
            throw .refused(provider: provider, reason: refusal.isEmpty ? "the model declined to answer" : String(refusal.prefix(300)))
        }
        if choice.finish_reason == "content_filter" {
            throw .refused(provider: provider, reason: "the provider's content filter stopped the answer")
        }
        let truncated = choice.finish_reason == "length"
        guard let content = choice.message.content else {
            throw .malformedResponse(provider: provider, reason: truncated ? "no content: cut off at the token limit (finish_reason length)" : "the message has no content",
                                     bodyPrefix: ProviderError.prefix(of: body))
        }
        let json = Data(content.utf8)
        let value: JSONValue
        do {
            value = try JSONValue.parse(json)
        } catch {
            let reason = truncated ? "the answer was cut off at the token limit (finish_reason length) before its JSON ended"
                                   : "the answer is not JSON (\(error))"
            throw .malformedResponse(provider: provider, reason: reason, bodyPrefix: ProviderError.prefix(of: json))
        }
        guard value.object != nil else {
            throw .malformedResponse(provider: provider, reason: "the answer is JSON but not an object", bodyPrefix: ProviderError.prefix(of: json))
        }
        return VisionAnswer(json: json, model: response.model ?? "", inputTokens: tokenCount(response.usage?.prompt_tokens),
                            outputTokens: tokenCount(response.usage?.completion_tokens), finishReason: choice.finish_reason)
    }
}
