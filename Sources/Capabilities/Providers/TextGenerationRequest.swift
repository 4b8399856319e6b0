import Foundation

/// One message of a conversation sent to a text provider.
public struct ChatMessage: Sendable, Codable, Equatable, Hashable {
    /// Who speaks: `user` or `assistant` (the system prompt is ``TextGenerationRequest/system``).
    public enum Role: String, Sendable, Codable, Hashable {
        case user, assistant
    }

    public var role: Role
    public var content: String

    public init(role: Role, content: String) {
        self.role = role
        self.content = content
    }
}

/// A text generation request, the same for every text provider.
public struct TextGenerationRequest: Sendable, Codable, Equatable, Hashable {
    /// The system prompt, if any.
    public var system: String?
    /// The conversation; the last message is normally the user's.
    public var messages: [ChatMessage]
    /// The model; nil takes the provider's configured default.
    public var model: String?
    /// The most tokens to generate.
    public var maxTokens: Int
    /// Sampling temperature; nil leaves the provider's default.
    public var temperature: Double?

    public init(system: String? = nil, messages: [ChatMessage], model: String? = nil, maxTokens: Int = 1_024, temperature: Double? = nil) {
        (self.system, self.messages, self.model, self.maxTokens, self.temperature) = (system, messages, model, maxTokens, temperature)
    }

    /// A request with one user message.
    public init(prompt: String, system: String? = nil, model: String? = nil, maxTokens: Int = 1_024, temperature: Double? = nil) {
        self.init(system: system, messages: [ChatMessage(role: .user, content: prompt)], model: model, maxTokens: maxTokens, temperature: temperature)
    }

    /// The token caps a request may ask for (no model answers more than a million tokens).
    public static let maxTokensRange = 1...1_000_000

    /// Throws when there is nothing to send, or a cap or temperature is out of range.
    public func validate() throws(ProviderError) {
        guard !messages.isEmpty else { throw .invalidRequest(reason: "no messages") }
        guard messages.contains(where: { !$0.content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) else {
            throw .invalidRequest(reason: "every message is empty")
        }
        guard Self.maxTokensRange.contains(maxTokens) else {
            throw .invalidRequest(reason: "max tokens must be between 1 and \(Self.maxTokensRange.upperBound)")
        }
        if let temperature, !(0...2).contains(temperature) { throw .invalidRequest(reason: "temperature must be between 0 and 2") }
    }
}

/// What a text provider answered.
public struct GeneratedText: Sendable, Equatable {
    /// The generated text.
    public var text: String
    /// The model that answered (as the provider named it).
    public var model: String
    /// Tokens of the prompt, when the provider reported them.
    public var inputTokens: Int?
    /// Tokens generated, when the provider reported them.
    public var outputTokens: Int?
    /// Why generation stopped, in the provider's words (`stop`, `end_turn`, `length`, `max_tokens`).
    public var finishReason: String?

    public init(text: String, model: String, inputTokens: Int?, outputTokens: Int?, finishReason: String?) {
        (self.text, self.model, self.inputTokens, self.outputTokens, self.finishReason) = (text, model, inputTokens, outputTokens, finishReason)
    }
}
