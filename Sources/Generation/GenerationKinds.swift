import Foundation
import Jobs
import Logging
import Providers

/// Registers `generate-text`, `embed` and `generate-image` with a worker's registry.
public enum GenerationKinds {
    /// Registers the three kinds. With a database, a worker records its providers in
    /// `generation_providers` when it starts, chains skip the ones an operator disabled, and
    /// stored results are reused.
    public static func register(in registry: JobRegistry, environment: GenerationEnvironment) {
        let directory = environment.postgres.map(GenerationProviderDirectory.init(postgres:))
        let storage = GenerationStorage(postgres: environment.postgres, assetsRoot: environment.assetsRoot)
        let chain = ProviderChainRunner(directory: directory)
        let providers = environment.providers
        if let directory {
            registry.onWorkerStart {
                do { try await directory.record(providers) } catch {
                    Logger(label: "reparto.generation").warning("could not record generation providers: \(error)")
                }
            }
        }
        let text = TextGenerator(providers: providers, storage: storage, chain: chain)
        registry.register(GenerateTextJob.self, timeout: GenerateTextJob.timeout) { try await text.run($0, context: $1) }
        let embed = EmbeddingGenerator(providers: providers, storage: storage, chain: chain)
        registry.register(EmbedJob.self, timeout: EmbedJob.timeout) { try await embed.run($0, context: $1) }
        let image = ImageGenerator(providers: providers, storage: storage, chain: chain)
        registry.register(GenerateImageJob.self, timeout: GenerateImageJob.timeout) { try await image.run($0, context: $1) }
    }
}
