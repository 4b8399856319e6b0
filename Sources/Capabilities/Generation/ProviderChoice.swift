import Providers

/// Which providers a command's `--…-provider` flag names, checked against the registry.
public enum ProviderChoice {
    /// The chain from a comma-separated flag, or the first configured provider with the capability.
    /// - Throws: ``ProviderChoiceError`` naming what is wrong.
    public static func chain(_ flag: String?, capability: ProviderCapability,
                             registry: GenerationProviderRegistry) throws(ProviderChoiceError) -> [String] {
        if let flag {
            let ids = flag.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !ids.isEmpty else { throw .noProviderGiven }
            for id in ids {
                guard let provider = try? registry.provider(id) else { throw .unknown(id, known: registry.ids) }
                guard provider.capabilities.contains(capability) else {
                    throw .incapable(id, capability: capability,
                                     capable: registry.providers.filter { $0.capabilities.contains(capability) }.map(\.id))
                }
            }
            return ids
        }
        guard let provider = registry.firstConfigured(capability) else { throw .noneConfigured(capability) }
        return [provider.id]
    }
}

/// A provider flag ``ProviderChoice`` refuses.
public enum ProviderChoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    case noProviderGiven
    case unknown(String, known: [String])
    case incapable(String, capability: ProviderCapability, capable: [String])
    case noneConfigured(ProviderCapability)

    public var description: String {
        switch self {
        case .noProviderGiven: "no provider given"
        case .unknown(let id, let known): "unknown provider '\(id)' (known: \(known.joined(separator: ", ")))"
        case .incapable(let id, let capability, let capable):
            "provider \(id) cannot generate \(capability.rawValue) (providers that can: \(capable.joined(separator: ", ")))"
        case .noneConfigured(let capability):
            "no \(capability.rawValue) provider is configured: set OPENAI_BASE_URL=http://127.0.0.1:11434/v1 "
                + "for a local Ollama, or OPENAI_API_KEY" + (capability == .text ? ", or ANTHROPIC_API_KEY" : "")
        }
    }
}
