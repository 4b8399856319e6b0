import Foundation

/// A provider of generated content (text, embeddings, images): a ``CapabilityProvider`` whose
/// capabilities are protocols too (``TextProvider``, ``EmbeddingProvider``, ``ImageProvider``), so
/// asking a provider for what it cannot do is a failed cast, reported as
/// ``ProviderError/unsupported(provider:capability:)``.
public protocol GenerationProvider: CapabilityProvider {}

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
