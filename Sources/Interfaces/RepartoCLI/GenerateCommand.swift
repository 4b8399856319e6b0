import ArgumentParser
import Foundation
import Generation
import RepartoRuntime
import Providers
import TerminalText
import TextEscaping

/// `reparto generate text|embed|image`: enqueues one generation job (embeddings: one per batch)
/// and, with `--wait`, prints what it produced.
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate text, embeddings or an image through a provider (as jobs on the cluster).",
        discussion: """
            Providers: openai (any OpenAI-compatible server at OPENAI_BASE_URL; OPENAI_API_KEY for OpenAI itself) \
            and anthropic (ANTHROPIC_API_KEY). A comma-separated list is a fallback chain: the next provider is \
            tried when one fails permanently or has no attempts left. The same provider, model, parameters and \
            input reuse the stored result unless --fresh.
            """,
        subcommands: [GenerateTextCommand.self, GenerateEmbedCommand.self, GenerateImageCommand.self])
}

/// Flags every `generate` subcommand shares.
struct GenerateOptions: ParsableArguments {
    @Flag(name: .long, help: "Ask the provider even when a stored result exists (and replace it).") var fresh = false
    @Flag(name: .long, help: "Wait for the job and print its result.") var wait = false
    @Option(name: .long, help: "Seconds --wait waits (default 300).") var timeout: Double = 300
    @Flag(name: .long, help: "With --wait: print the result as JSON.") var json = false
    @Option(name: .long, help: "Production (batch) id or name to add the job to; created when new.") var production: String?
    @Option(name: .long, help: "Attempts before the job is dead (default 5).") var maxAttempts: Int = 5

    func validate() throws {
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    /// The chain from a `--…-provider` flag, or the first configured provider with the capability.
    func chain(_ flag: String?, capability: ProviderCapability, registry: GenerationProviderRegistry) throws -> [String] {
        do { return try ProviderChoice.chain(flag, capability: capability, registry: registry) } catch { throw CLIError(error.description) }
    }

    /// Enqueues the requests (in one production when `--production` names one) and returns their ids.
    func enqueue(_ requests: [JobRequest], cluster: ClusterOptions) async throws -> [UUID] {
        try await cluster.withPostgres(logger: cluster.makeLogger("reparto.generate")) { postgres in
            let client = JobClient(postgres: postgres)
            var requests = requests
            if let production {
                let id = try await client.createProduction(named: production)
                for index in requests.indices { requests[index].options.productionID = id }
            }
            let batch = requests
            return try await client.enqueue(count: batch.count) { batch[$0] }
        }
    }

    /// Waits for every job; throws when one did not succeed.
    func await(_ ids: [UUID], cluster: ClusterOptions) async throws -> [JobRecord] {
        try await cluster.withPostgres(logger: cluster.makeLogger("reparto.generate")) { postgres in
            let client = JobClient(postgres: postgres)
            var records: [JobRecord] = []
            for id in ids {
                let record = try await client.awaitJob(id, timeout: timeout)
                guard record.state == .succeeded else {
                    throw CLIError("job \(id.uuidString.lowercased()) \(record.state.rawValue): \(TerminalSafe.clean(record.lastError ?? "no error recorded"))")
                }
                records.append(record)
            }
            return records
        }
    }

    var options: JobOptions { JobOptions(maxAttempts: maxAttempts) }

    /// The defaults, for commands that only need ``chain(_:capability:registry:)``.
    static var `default`: GenerateOptions {
        // Parsing no arguments cannot fail: every option has a default.
        (try? GenerateOptions.parse([])) ?? GenerateOptions()
    }
}

struct GenerateTextCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "text", abstract: "Generate text from a prompt.")

    @OptionGroup var cluster: ClusterOptions
    @OptionGroup var generate: GenerateOptions
    @Argument(help: "The prompt (the user's message).") var prompt: String
    @Option(name: .long, help: "System prompt.") var system: String?
    @Option(name: .customLong("text-provider"), help: "Provider or fallback chain, e.g. anthropic,openai (default: the first configured).")
    var provider: String?
    @Option(name: .long, help: "Model (default: the provider's, e.g. OPENAI_TEXT_MODEL, ANTHROPIC_MODEL).") var model: String?
    @Option(name: .long, help: "Most tokens to generate (default 1024).") var maxTokens: Int = 1_024
    @Option(name: .long, help: "Sampling temperature (0–2; Anthropic 0–1).") var temperature: Double?

    func run() async throws {
        let registry = GenerationProviderRegistry.standard(values: try cluster.configuration)
        let request = TextGenerationRequest(prompt: prompt, system: system, model: model, maxTokens: maxTokens, temperature: temperature)
        do { try request.validate() } catch { throw CLIError(error.description) }
        let job = GenerateTextJob(providers: try generate.chain(provider, capability: .text, registry: registry), request: request,
                                  fresh: generate.fresh)
        let ids = try await generate.enqueue([try JobRequest(job, options: generate.options)], cluster: cluster)
        guard generate.wait else { return ids.forEach { print($0.uuidString.lowercased()) } }
        for record in try await generate.await(ids, cluster: cluster) {
            guard let result = try record.decodeResult(GenerateTextJob.Result.self) else { continue }
            print(generate.json ? try JSONText.pretty(result) : GenerationText.text(result))
        }
    }
}

struct GenerateEmbedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed", abstract: "Embed texts: the arguments, or one text per line of --file (- for stdin).")

    @OptionGroup var cluster: ClusterOptions
    @OptionGroup var generate: GenerateOptions
    @Argument(help: "Texts to embed.") var texts: [String] = []
    @Option(name: .long, help: "A file with one text per line (- for stdin).") var file: String?
    @Option(name: .customLong("embedding-provider"), help: "Provider or fallback chain (default: the first configured).")
    var provider: String?
    @Option(name: .long, help: "Model (default: the provider's, e.g. OPENAI_EMBEDDING_MODEL).") var model: String?

    func run() async throws {
        var all = texts
        if let file {
            let data = try InputFile.read(file, maxBytes: 64 << 20)
            all += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        }
        guard !all.isEmpty else { throw CLIError("nothing to embed: give texts or --file") }
        let registry = GenerationProviderRegistry.standard(values: try cluster.configuration)
        let chain = try generate.chain(provider, capability: .embedding, registry: registry)
        // One job per provider batch: each job is one call under the provider's limit.
        let batch = (try? registry.embeddingProvider(chain[0]).embeddingBatchSize) ?? 256
        let requests = try stride(from: 0, to: all.count, by: batch).map { start in
            try JobRequest(EmbedJob(providers: chain, texts: Array(all[start..<min(start + batch, all.count)]), model: model,
                                    fresh: generate.fresh), options: generate.options)
        }
        let ids = try await generate.enqueue(requests, cluster: cluster)
        guard generate.wait else { return ids.forEach { print($0.uuidString.lowercased()) } }
        for record in try await generate.await(ids, cluster: cluster) {
            guard let result = try record.decodeResult(EmbedJob.Result.self) else { continue }
            print(generate.json ? try JSONText.pretty(result) : GenerationText.embeddings(result))
        }
    }
}

struct GenerateImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "image", abstract: "Generate a PNG image from a prompt.")

    @OptionGroup var cluster: ClusterOptions
    @OptionGroup var generate: GenerateOptions
    @Argument(help: "The prompt.") var prompt: String
    @Option(name: .long, help: "WIDTHxHEIGHT (default 1024x1024).") var size: String = "1024x1024"
    @Option(name: .customLong("image-provider"), help: "Provider or fallback chain (default: the first configured).")
    var provider: String?
    @Option(name: .long, help: "Model (default: the provider's, e.g. OPENAI_IMAGE_MODEL).") var model: String?

    func run() async throws {
        let registry = GenerationProviderRegistry.standard(values: try cluster.configuration)
        let request = ImageRequest(prompt: prompt, size: size, model: model)
        do { try request.validate() } catch { throw CLIError(error.description) }
        let job = GenerateImageJob(providers: try generate.chain(provider, capability: .image, registry: registry), request: request,
                                   fresh: generate.fresh)
        let ids = try await generate.enqueue([try JobRequest(job, options: generate.options)], cluster: cluster)
        guard generate.wait else { return ids.forEach { print($0.uuidString.lowercased()) } }
        for record in try await generate.await(ids, cluster: cluster) {
            guard let result = try record.decodeResult(GenerateImageJob.Result.self) else { continue }
            print(generate.json ? try JSONText.pretty(result) : GenerationText.image(result))
        }
    }
}
