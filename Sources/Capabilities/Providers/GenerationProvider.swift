import Foundation

/// A provider of generated content (text, embeddings, images, answers about images): a
/// ``CapabilityProvider`` whose capabilities are protocols too (``TextProvider``,
/// ``EmbeddingProvider``, ``ImageProvider``, ``VisionProvider``), so
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

/// A provider that looks at images: images and a prompt in, one JSON object matching the
/// request's JSON Schema out (the ``ProviderCapability/vision`` capability).
public protocol VisionProvider: GenerationProvider {
    /// Sends the images, the prompt and the schema (and a correction's turns, when retrying);
    /// returns the model's JSON object. Validates the request first (``VisionRequest/validate()``
    /// and the provider's own image limits), so an invalid one sends nothing.
    func describeImages(_ request: VisionRequest) async throws(ProviderError) -> VisionAnswer
}
