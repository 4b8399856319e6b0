import Foundation

/// The OpenAI API's request and response bodies (chat completions, embeddings, images), as
/// OpenAI documents them and as Ollama, vLLM, llama.cpp's server and LM Studio speak them.
/// Pure: building and decoding are unit-tested without a server.
public enum OpenAIWire {
    // MARK: chat completions

    /// The field that carries ``TextGenerationRequest/maxTokens`` in a chat completion.
    ///
    /// OpenAI deprecated `max_tokens` for `max_completion_tokens` (an upper bound on visible and
    /// reasoning tokens; its o-series reasoning models reject `max_tokens` with a 400). Servers
    /// that copy the API lag behind: older Ollama, llama.cpp's server and llama-cpp-python read
    /// only `max_tokens` and ignore the new field (the answer is then unbounded).
    public enum MaxTokensField: String, Sendable, CaseIterable {
        /// `max_tokens`: what every OpenAI-compatible server reads.
        case maxTokens = "max_tokens"
        /// `max_completion_tokens`: what OpenAI's own API documents (required by reasoning models).
        case maxCompletionTokens = "max_completion_tokens"
    }

    /// `POST {base}/v1/chat/completions`. The system prompt is the first message (role `system`);
    /// the token cap goes in `field` (``MaxTokensField``; `max_tokens` unless told otherwise).
    public static func chatBody(_ request: TextGenerationRequest, model: String, field: MaxTokensField = .maxTokens) throws -> Data {
        var messages: [Message] = []
        if let system = request.system, !system.isEmpty { messages.append(Message(role: "system", content: system)) }
        messages += request.messages.map { Message(role: $0.role.rawValue, content: $0.content) }
        return try encoder.encode(ChatBody(model: model, messages: messages,
                                           max_tokens: field == .maxTokens ? request.maxTokens : nil,
                                           max_completion_tokens: field == .maxCompletionTokens ? request.maxTokens : nil,
                                           temperature: request.temperature))
    }

    /// Decodes a chat completion; a `content_filter` finish or a `refusal` is ``ProviderError/refused(provider:reason:)``.
    public static func decodeChat(_ body: Data, provider: String) throws(ProviderError) -> GeneratedText {
        let response: ChatResponse = try decode(ChatResponse.self, body, provider: provider)
        guard let choice = response.choices.first else {
            throw .malformedResponse(provider: provider, reason: "no choices", bodyPrefix: ProviderError.prefix(of: body))
        }
        if let refusal = choice.message.refusal, !refusal.isEmpty { throw .refused(provider: provider, reason: refusal) }
        if choice.finish_reason == "content_filter" {
            throw .refused(provider: provider, reason: "the provider's content filter stopped the answer")
        }
        guard let content = choice.message.content else {
            throw .malformedResponse(provider: provider, reason: "the message has no content", bodyPrefix: ProviderError.prefix(of: body))
        }
        return GeneratedText(text: content, model: response.model ?? "", inputTokens: tokenCount(response.usage?.prompt_tokens),
                             outputTokens: tokenCount(response.usage?.completion_tokens), finishReason: choice.finish_reason)
    }

    /// The most tokens one answer is believed to report (2^40): sums and costs of counts up to
    /// this never overflow.
    public static let largestTokenCount = 1 << 40

    /// A provider's token count, or nil (not reported) when it is negative or beyond
    /// ``largestTokenCount``: a server's nonsense must not overflow the usage ledger.
    public static func tokenCount(_ reported: Int?) -> Int? {
        guard let reported, (0...largestTokenCount).contains(reported) else { return nil }
        return reported
    }

    // MARK: embeddings

    /// `POST {base}/v1/embeddings` with `encoding_format: "float"`.
    public static func embeddingsBody(_ texts: [String], model: String) throws -> Data {
        try encoder.encode(EmbeddingsBody(model: model, input: texts, encoding_format: "float"))
    }

    /// Decodes an embeddings list, ordered by each item's `index`; the count and the dimensions
    /// must agree with the request.
    public static func decodeEmbeddings(_ body: Data, expected: Int, provider: String) throws(ProviderError) -> Embeddings {
        let response: EmbeddingsResponse = try decode(EmbeddingsResponse.self, body, provider: provider)
        let items = response.data.sorted { $0.index < $1.index }
        guard items.count == expected, items.map(\.index) == Array(0..<expected) else {
            throw .malformedResponse(provider: provider, reason: "\(items.count) embeddings for \(expected) texts",
                                     bodyPrefix: ProviderError.prefix(of: body))
        }
        let dimensions = items.first?.embedding.count ?? 0
        guard dimensions > 0, items.allSatisfy({ $0.embedding.count == dimensions }) else {
            throw .malformedResponse(provider: provider, reason: "embeddings of different or zero length", bodyPrefix: ProviderError.prefix(of: body))
        }
        return Embeddings(vectors: items.map(\.embedding), model: response.model ?? "", inputTokens: tokenCount(response.usage?.prompt_tokens))
    }

    // MARK: images

    /// `POST {base}/v1/images/generations`, one image. dall-e models (and most compatible servers)
    /// need `response_format: "b64_json"`; the GPT image models always answer base64 and reject
    /// that field, so they get `output_format: "png"` instead.
    public static func imageBody(_ request: ImageRequest, model: String) throws -> Data {
        let gptImage = model.hasPrefix("gpt-image")
        return try encoder.encode(ImageBody(model: model, prompt: request.prompt, n: 1, size: request.size,
                                            response_format: gptImage ? nil : "b64_json", output_format: gptImage ? "png" : nil))
    }

    /// Decodes the first image's `b64_json`; the bytes must be a PNG.
    public static func decodeImage(_ body: Data, model: String, provider: String) throws(ProviderError) -> GeneratedImage {
        let response: ImageResponse = try decode(ImageResponse.self, body, provider: provider)
        guard let first = response.data.first else {
            throw .malformedResponse(provider: provider, reason: "no images", bodyPrefix: ProviderError.prefix(of: body))
        }
        guard let base64 = first.b64_json else {
            let reason = first.url == nil ? "no b64_json" : "a URL instead of b64_json"
            throw .malformedResponse(provider: provider, reason: reason, bodyPrefix: ProviderError.prefix(of: body))
        }
        guard let png = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else {
            throw .malformedResponse(provider: provider, reason: "b64_json is not base64", bodyPrefix: ProviderError.prefix(of: body))
        }
        guard png.starts(with: GeneratedImage.pngSignature) else {
            throw .malformedResponse(provider: provider, reason: "the image is not a PNG", bodyPrefix: ProviderError.prefix(of: body))
        }
        return GeneratedImage(png: png, model: model, revisedPrompt: first.revised_prompt)
    }

    // MARK: wire types (field names as on the wire)

    struct Message: Codable { var role: String; var content: String }
    struct ChatBody: Encodable {
        var model: String; var messages: [Message]; var max_tokens: Int?; var max_completion_tokens: Int?; var temperature: Double?
    }
    struct ChatResponse: Decodable {
        struct Choice: Decodable {
            struct Message: Decodable { var content: String?; var refusal: String? }
            var message: Message
            var finish_reason: String?
        }
        struct Usage: Decodable { var prompt_tokens: Int?; var completion_tokens: Int? }
        var model: String?
        var choices: [Choice]
        var usage: Usage?
    }
    struct EmbeddingsBody: Encodable { var model: String; var input: [String]; var encoding_format: String }
    struct EmbeddingsResponse: Decodable {
        struct Item: Decodable { var index: Int; var embedding: [Float] }
        struct Usage: Decodable { var prompt_tokens: Int? }
        var data: [Item]
        var model: String?
        var usage: Usage?
    }
    struct ImageBody: Encodable {
        var model: String; var prompt: String; var n: Int; var size: String
        var response_format: String?; var output_format: String?
    }
    struct ImageResponse: Decodable {
        struct Item: Decodable { var b64_json: String?; var url: String?; var revised_prompt: String? }
        var data: [Item]
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Decodes a 2xx body, or throws ``ProviderError/malformedResponse(provider:reason:bodyPrefix:)``.
    static func decode<T: Decodable>(_ type: T.Type, _ body: Data, provider: String) throws(ProviderError) -> T {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw .malformedResponse(provider: provider, reason: reason(error), bodyPrefix: ProviderError.prefix(of: body))
        }
    }

    /// A short reason from a decoding error, without the values it quotes.
    static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing field '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "unexpected value at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        case DecodingError.dataCorrupted: return "not JSON"
        default: return "undecodable"
        }
    }
}
