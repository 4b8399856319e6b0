/// A retry after an answer that did not validate against the schema: the model's own answer
/// (sent back as the assistant's turn) and what was wrong with it (sent in a user turn asking
/// again: "That answer did not validate: <error>. Answer again, only with JSON matching the schema.").
public struct VisionCorrection: Sendable, Hashable {
    /// The model's answer as it gave it (the JSON text, or whatever it sent instead).
    public var answer: String
    /// What was wrong, in one line (a validator's message).
    public var error: String

    public init(answer: String, error: String) {
        (self.answer, self.error) = (answer, error)
    }

    /// The user turn that asks again.
    var retryPrompt: String {
        var reason = error.trimmingCharacters(in: .whitespacesAndNewlines)
        while reason.hasSuffix(".") { reason.removeLast() }
        return "That answer did not validate: \(reason). Answer again, only with JSON matching the schema."
    }
}
