import Foundation

/// What a vision provider answered: a JSON object shaped by the request's schema.
public struct VisionAnswer: Sendable, Equatable {
    /// The structured answer: the JSON object the model produced (bytes), exactly as received
    /// (OpenAI: `message.content`, checked to be one JSON object; Anthropic: the `tool_use`
    /// block's `input`, written again with sorted keys and every number as its literal). It is
    /// JSON and an object; whether it matches the schema is the caller's to check (and, when it
    /// does not, to ask again with a ``VisionCorrection``).
    public var json: Data
    /// The model that answered (as the provider named it; the one asked when it did not say).
    public var model: String
    /// Tokens of the prompt and images, when the provider reported them.
    public var inputTokens: Int?
    /// Tokens generated, when the provider reported them.
    public var outputTokens: Int?
    /// Why generation stopped, in the provider's words (`stop`, `tool_use`).
    public var finishReason: String?

    public init(json: Data, model: String, inputTokens: Int?, outputTokens: Int?, finishReason: String?) {
        (self.json, self.model, self.inputTokens, self.outputTokens, self.finishReason) = (json, model, inputTokens, outputTokens, finishReason)
    }
}
