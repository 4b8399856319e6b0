/// What a provider can do. A provider declares the capabilities it has; a job kind asks
/// for one (`generate-text` needs ``text``), so a missing one is an error before any request.
public enum ProviderCapability: String, Sendable, Codable, CaseIterable, Comparable {
    /// Text to speech (the voice providers of the `Speech` module).
    case speech
    /// Text generation: chat completions, Anthropic messages.
    case text
    /// Embeddings: one float vector per input text.
    case embedding
    /// Images from a prompt.
    case image
    /// Images in, a structured answer out: images and a prompt, answered with one JSON object
    /// matching a JSON Schema (``VisionProvider``).
    case vision

    public static func < (lhs: ProviderCapability, rhs: ProviderCapability) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
