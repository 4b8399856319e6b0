import Foundation

/// A provider of generated content: what it can do, which models it uses by default, and
/// whether it is configured. The capabilities are protocols too (``TextProvider``,
/// ``EmbeddingProvider``, ``ImageProvider``), so asking a provider for what it cannot do is a
/// failed cast, reported as ``ProviderError/unsupported(provider:capability:)``.
public protocol GenerationProvider: Sendable {
    /// Stable id: `openai`, `anthropic`; used in limits (`provider:ID`), rows and flags.
    var id: String { get }
    /// A human name for lists.
    var displayName: String { get }
    /// What it can generate.
    var capabilities: Set<ProviderCapability> { get }
    /// The model used for each capability when a request names none.
    var defaultModels: [ProviderCapability: String] { get }
    /// True when it can be called (its key or base URL is set).
    var isConfigured: Bool { get }
    /// What to set to configure it (one line, naming the variables).
    var configurationHint: String { get }
}

/// A provider that generates text.
public protocol TextProvider: GenerationProvider {
    func generateText(_ request: TextGenerationRequest) async throws(ProviderError) -> GeneratedText
}

/// A provider that embeds texts.
public protocol EmbeddingProvider: GenerationProvider {
    /// The most texts sent in one request; ``embed(_:)`` splits larger requests.
    var embeddingBatchSize: Int { get }
    func embed(_ request: EmbeddingRequest) async throws(ProviderError) -> Embeddings
}

/// A provider that generates images.
public protocol ImageProvider: GenerationProvider {
    func generateImage(_ request: ImageRequest) async throws(ProviderError) -> GeneratedImage
}
