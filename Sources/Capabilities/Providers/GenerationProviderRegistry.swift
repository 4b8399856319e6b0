import Foundation
import RepartoConfiguration

/// The generation providers a process knows, by id, with typed look-ups per capability.
///
/// ```swift
/// let registry = GenerationProviderRegistry.standard(values: ConfigurationValues())
/// let text = try registry.textProvider("anthropic")
/// ```
public struct GenerationProviderRegistry: Sendable {
    /// In the order they are listed.
    public let providers: [any GenerationProvider]

    public init(_ providers: [any GenerationProvider]) {
        self.providers = providers
    }

    /// OpenAI-compatible and Anthropic, configured from `values` (flags > environment > env file).
    public static func standard(values: ConfigurationValues) -> GenerationProviderRegistry {
        GenerationProviderRegistry([
            OpenAICompatibleProvider(configuration: .init(values: values)),
            AnthropicProvider(configuration: .init(values: values)),
        ])
    }

    /// The ids, in order.
    public var ids: [String] { providers.map(\.id) }

    /// The provider with this id.
    public func provider(_ id: String) throws(ProviderError) -> any GenerationProvider {
        guard let provider = providers.first(where: { $0.id == id }) else { throw .unknownProvider(id) }
        return provider
    }

    /// A configured provider that generates text.
    public func textProvider(_ id: String) throws(ProviderError) -> any TextProvider {
        guard let provider = try configured(id) as? any TextProvider else { throw .unsupported(provider: id, capability: .text) }
        return provider
    }

    /// A configured provider that embeds texts.
    public func embeddingProvider(_ id: String) throws(ProviderError) -> any EmbeddingProvider {
        guard let provider = try configured(id) as? any EmbeddingProvider else { throw .unsupported(provider: id, capability: .embedding) }
        return provider
    }

    /// A configured provider that generates images.
    public func imageProvider(_ id: String) throws(ProviderError) -> any ImageProvider {
        guard let provider = try configured(id) as? any ImageProvider else { throw .unsupported(provider: id, capability: .image) }
        return provider
    }

    /// A configured provider that answers about images.
    public func visionProvider(_ id: String) throws(ProviderError) -> any VisionProvider {
        guard let provider = try configured(id) as? any VisionProvider else { throw .unsupported(provider: id, capability: .vision) }
        return provider
    }

    /// The first configured provider with the capability: the default when a job names none.
    public func firstConfigured(_ capability: ProviderCapability) -> (any GenerationProvider)? {
        providers.first { $0.isConfigured && $0.capabilities.contains(capability) }
    }

    private func configured(_ id: String) throws(ProviderError) -> any GenerationProvider {
        let provider = try provider(id)
        guard provider.isConfigured else { throw .notConfigured(provider: id, hint: provider.configurationHint) }
        return provider
    }
}
