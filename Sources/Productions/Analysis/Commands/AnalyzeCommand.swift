import ProductionKit
import ArgumentParser
import Foundation
import RepartoRuntime
import Generation
import Providers
import Screenplay
import TerminalText
import Threading

/// `reparto analyze FILE`: a script analysis production (a summary and an embedding per scene,
/// then a logline and a synopsis; with `--storyboard`, a frame per scene).
struct AnalyzeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Analyze a script: per-scene summaries and embeddings, then a logline and a synopsis (and a storyboard).",
        discussion: "Needs a text and an embedding provider, and for --storyboard an image provider (docs/generation.md); without one it creates nothing.")

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "The script (Fountain, FDX or Markdown).") var file: String
    @Option(name: .customLong("text-provider"), help: "Text provider or fallback chain (default: the first configured).") var textProvider: String?
    @Option(name: .customLong("embedding-provider"), help: "Embedding provider or chain (default: the first configured).") var embeddingProvider: String?
    @Flag(name: .long, help: "Add a storyboard frame per scene (an image drawn from its heading and summary).") var storyboard = false
    @Option(name: .customLong("image-provider"), help: "With --storyboard: image provider or chain (default: the first configured).") var imageProvider: String?
    @Option(name: .customLong("image-size"), help: "With --storyboard: WIDTHxHEIGHT of each frame (default 1024x1024).") var imageSize = "1024x1024"
    @Flag(name: .long, help: "Ask the providers even for stored results.") var fresh = false
    @Option(name: .long, help: "Production name (default: the file's name).") var name: String?
    @Flag(name: .long, help: "Wait until the analysis finishes and print it.") var wait = false
    @Option(name: .long, help: "With --wait: give up after this many seconds.") var timeout: Double = 3_600
    @Flag(name: .long, help: "With --wait: print JSON.") var json = false

    func validate() throws {
        if !storyboard && (imageProvider != nil || imageSize != "1024x1024") {
            throw ValidationError("--image-provider and --image-size need --storyboard")
        }
        do { try ImageRequest(prompt: "frame", size: imageSize).validate() } catch { throw ValidationError("--image-size: \(error)") }
    }

    func run() async throws {
        let registry = GenerationProviderRegistry.standard(values: try cluster.configuration)
        // The storyboard's provider first: without one, nothing is parsed or created.
        let frames = try storyboard ? StoryboardRequest(imageProviders: chain(imageProvider, capability: .image, registry: registry),
                                                        size: imageSize) : nil
        let request = AnalysisRequest(sourceName: URL(fileURLWithPath: file).lastPathComponent,
                                      textProviders: try chain(textProvider, capability: .text, registry: registry),
                                      embeddingProviders: try chain(embeddingProvider, capability: .embedding, registry: registry),
                                      fresh: fresh, storyboard: frames)
        let path = file
        let document = try await BlockingWork.run { () throws -> ScreenplayDocument in
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch { throw CLIError("cannot read \(path)") }
            do { return try ScreenplayReader.read(Array(data), fileName: path) } catch { throw CLIError("cannot parse \(path): \(error)") }
        }
        let logger = cluster.makeLogger("reparto.analyze")
        let assets = ClusterSettings.assetsRoot(try cluster.configuration)
        let results = try await cluster.withPostgres(logger: logger) { postgres -> AnalysisResults? in
            let client = AnalysisClient(postgres: postgres, assetsRoot: assets)
            let id = try await client.submit(document: document, request: request, name: name ?? request.sourceName)
            print("production \(id.uuidString.lowercased())")
            guard wait else { return nil }
            return try await client.awaitResults(id, timeout: timeout)
        }
        if let results { print(json ? try JSONText.pretty(results) : AnalysisText.results(results), terminator: "") }
    }
}

/// `reparto search "QUERY"`: the analyzed scenes most similar to a query.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Rank analyzed scenes by similarity to a query (exact cosine search over their embeddings).")

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "The query.") var query: String
    @Option(name: .long, help: "Only scenes of this production (id or name).") var production: String?
    @Option(name: .long, help: "How many scenes (default 5).") var limit: Int = 5
    @Flag(name: .long, help: "Print JSON.") var json = false

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        let registry = GenerationProviderRegistry.standard(values: try cluster.configuration)
        let productionID = production.map(ProductionName.resolve)
        let matches = try await cluster.withPostgres(maxConnections: 1, logger: cluster.makeLogger("reparto.search")) { postgres in
            try await AnalysisClient(postgres: postgres).search(query, production: productionID, limit: limit, providers: registry)
        }
        print(json ? try JSONText.pretty(matches) : AnalysisText.matches(matches))
    }
}

/// The chain a `--…-provider` flag names, or the first configured provider with the capability.
private func chain(_ flag: String?, capability: ProviderCapability, registry: GenerationProviderRegistry) throws -> [String] {
    do { return try ProviderChoice.chain(flag, capability: capability, registry: registry) } catch { throw CLIError(error.description) }
}
