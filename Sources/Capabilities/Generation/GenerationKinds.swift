import Foundation
import RepartoRuntime
import Logging
import Providers

/// Registers `text.generate`, `text.embed` and `image.generate` with a worker's registry.
public enum GenerationKinds {
    /// The kinds' former names (old → new): jobs stored under them still run.
    public static var formerKindNames: [String: String] {
        ["generate-text": GenerateTextJob.kind, "embed": EmbedJob.kind, "generate-image": GenerateImageJob.kind]
    }

    /// Registers the three kinds. With a database, a worker records its providers in
    /// `generation_providers` when it starts, chains skip the ones an operator disabled, and
    /// stored results are reused.
    public static func register(in registry: JobRegistry, environment: GenerationEnvironment) {
        let directory = environment.postgres.map(GenerationProviderDirectory.init(postgres:))
        let providers = environment.providers
        let generators = Generators(environment: environment)
        if let directory {
            registry.onWorkerStart {
                do { try await directory.record(providers) } catch {
                    Logger(label: "reparto.generation").warning("could not record generation providers: \(error)")
                }
            }
        }
        registry.register(GenerateTextJob.self, timeout: GenerateTextJob.timeout) { try await generators.generateText($0, context: $1) }
        registry.register(EmbedJob.self, timeout: EmbedJob.timeout) { try await generators.embed($0, context: $1) }
        registry.register(GenerateImageJob.self, timeout: GenerateImageJob.timeout) { try await generators.generateImage($0, context: $1) }
    }
}
