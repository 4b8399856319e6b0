import Foundation
import RepartoRuntime
import Providers

/// The work behind the three generation kinds, for production types whose own jobs generate
/// (the script analysis summarizes a scene and embeds it in one job). Each call follows the
/// job's fallback chain, reuses stored results, and registers its `generated_content` rows and
/// ledger lines with `context`, so they commit with that job's success.
public struct Generators: Sendable {
    let text: TextGenerator
    let embedding: EmbeddingGenerator
    let image: ImageGenerator

    public init(environment: GenerationEnvironment) {
        let directory = environment.postgres.map(GenerationProviderDirectory.init(postgres:))
        let storage = GenerationStorage(postgres: environment.postgres, assetsRoot: environment.assetsRoot)
        let chain = ProviderChainRunner(directory: directory)
        let single = SingleResultGeneration(storage: storage, chain: chain)
        text = TextGenerator(providers: environment.providers, work: single)
        embedding = EmbeddingGenerator(providers: environment.providers, storage: storage, chain: chain)
        image = ImageGenerator(providers: environment.providers, work: single)
    }

    /// What a `text.generate` job would do.
    public func generateText(_ job: GenerateTextJob, context: JobContext) async throws -> GenerateTextJob.Result {
        try await text.run(job, context: context)
    }

    /// What an `embed` job would do.
    public func embed(_ job: EmbedJob, context: JobContext) async throws -> EmbedJob.Result {
        try await embedding.run(job, context: context)
    }

    /// What a `image.generate` job would do.
    public func generateImage(_ job: GenerateImageJob, context: JobContext) async throws -> GenerateImageJob.Result {
        try await image.run(job, context: context)
    }
}
