import Foundation

/// The Anthropic Messages API's request and response bodies (`POST {base}/v1/messages`).
/// Pure: building and decoding are unit-tested without a server.
public enum AnthropicWire {
    /// The `anthropic-version` header every request carries.
    public static let version = "2023-06-01"

    /// The body: `model`, `max_tokens`, `messages`, and `system` / `temperature` when set.
    public static func messagesBody(_ request: TextGenerationRequest, model: String) throws -> Data {
        try OpenAIWire.encoder.encode(Body(
            model: model, max_tokens: request.maxTokens,
            system: request.system.flatMap { $0.isEmpty ? nil : $0 },
            messages: request.messages.map { OpenAIWire.Message(role: $0.role.rawValue, content: $0.content) },
            temperature: request.temperature))
    }

    /// Decodes a message: the text blocks joined; `stop_reason: "refusal"` is
    /// ``ProviderError/refused(provider:reason:)``.
    public static func decodeMessage(_ body: Data, provider: String) throws(ProviderError) -> GeneratedText {
        let response: Response = try OpenAIWire.decode(Response.self, body, provider: provider)
        if response.stop_reason == "refusal" {
            let said = response.content.compactMap(\.text).joined()
            throw .refused(provider: provider, reason: said.isEmpty ? "the model declined to answer" : String(said.prefix(300)))
        }
        let texts = response.content.filter { $0.type == "text" }.compactMap(\.text)
        guard !texts.isEmpty else {
            throw .malformedResponse(provider: provider, reason: "no text content", bodyPrefix: ProviderError.prefix(of: body))
        }
        return GeneratedText(text: texts.joined(), model: response.model ?? "", inputTokens: OpenAIWire.tokenCount(response.usage?.input_tokens),
                             outputTokens: OpenAIWire.tokenCount(response.usage?.output_tokens), finishReason: response.stop_reason)
    }

    struct Body: Encodable {
        var model: String; var max_tokens: Int; var system: String?
        var messages: [OpenAIWire.Message]; var temperature: Double?
    }
    struct Response: Decodable {
        struct Block: Decodable { var type: String; var text: String? }
        struct Usage: Decodable { var input_tokens: Int?; var output_tokens: Int? }
        var model: String?
        var content: [Block]
        var stop_reason: String?
        var usage: Usage?
    }
}
