import Analysis
import Foundation
import Generation
import RepartoRuntime
import Providers
import RepartoConfiguration
import RepartoTestSupport
import Synchronization
import Testing

/// `reparto analyze`, `results` and `search` end to end: the real PostgreSQL and RabbitMQ, an
/// in-process coordinator and worker, and an OpenAI-compatible stand-in.
@Suite("script analysis production", .serialized, .timeLimit(.minutes(4)))
struct AnalysisTests {
    static let script = """
        INT. KITCHEN - NIGHT

        The kettle screams. ANNA pours tea in the kitchen.

        ANNA
        The kettle again.

        EXT. STREET - DAY

        Rain hammers a parked car.

        INT. OFFICE - DAY

        BOB files papers in the office.
        """

    /// Words the stand-in's embeddings count: one dimension each, plus a constant one.
    static let vocabulary = ["kitchen", "kettle", "tea", "rain", "car", "street", "office", "papers"]

    static func vector(_ text: String) -> [Float] {
        let words = text.lowercased().split { !$0.isLetter }
        return vocabulary.map { word in Float(words.filter { $0 == word }.count) } + [0.1]
    }

    /// Chat: a summary names the scene's heading; logline and synopsis are fixed. Counts summaries.
    /// `images` answers `/v1/images/generations` (a 404 without it).
    static func standIn(summaries: SummaryCounter,
                        images: (@Sendable (FakeHTTPServer.Request) -> FakeHTTPServer.Reply)? = nil) throws -> FakeHTTPServer {
        try AnalysisStandIn.start(images: images, intercept: { ask in
            if case .summary = ask { summaries.count.add(1, ordering: .relaxed) }
            return nil
        })
    }

    @Test func analyzeSearchAndReanalyzeAnEditedScript() async throws {
        let cluster = try await TestCluster.make()
        let root = try GenerationJobTests.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let summaries = SummaryCounter()
        let server = try Self.standIn(summaries: summaries)
        defer { server.stop() }
        let providers = GenerationProviderRegistry([
            OpenAICompatibleProvider(configuration: .init(baseURL: server.baseURL, apiKey: nil, textModel: "llama3.2",
                                                          embeddingModel: "nomic-embed-text", timeout: StandInTimeout.seconds)),
        ])
        let registry = JobRegistry()
        let environment = GenerationEnvironment(assetsRoot: root, providers: providers, postgres: cluster.postgres)
        GenerationKinds.register(in: registry, environment: environment)
        AnalysisKinds.register(in: registry, environment: environment)
        let worker = cluster.startWorker(registry: registry)
        let coordinator = cluster.startCoordinator(plans: AnalysisKinds.plans)
        let file = try CLIDocumentedTests.temporaryFile("short.fountain", Self.script)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        var env = try GenerationCLITests.environment(cluster, openAI: server)
        env["OPENAI_TEXT_MODEL"] = "llama3.2"
        env["OPENAI_EMBEDDING_MODEL"] = "nomic-embed-text"

        let analyze = try await RepartoProcess.run(["analyze", file.path, "--wait", "--json", "--timeout", "120"], environment: env)
        #expect(analyze.status == 0, "\(analyze.stderr)")
        let json = String(analyze.stdout.drop { $0 != "{" })
        let results = try JSONDecoder().decode(AnalysisResults.self, from: Data(json.utf8))
        #expect(results.scenes.map(\.heading) == ["INT. KITCHEN - NIGHT", "EXT. STREET - DAY", "INT. OFFICE - DAY"])
        #expect(results.scenes.map(\.summary) == ["Summary of INT. KITCHEN - NIGHT.", "Summary of EXT. STREET - DAY.",
                                                  "Summary of INT. OFFICE - DAY."])
        #expect(results.scenes.allSatisfy { $0.embedded && $0.provider == "openai" })
        #expect(results.logline == AnalysisStandIn.logline)
        #expect(results.synopsis == AnalysisStandIn.synopsis)
        #expect(summaries.count.load(ordering: .relaxed) == 3)
        #expect(results.characters.map(\.name) == ["ANNA"], "BOB only appears in action")
        #expect(results.characters.first?.description == "Description of ANNA.")
        #expect(results.characters.first?.lines == 1)

        let shown = try await RepartoProcess.run(["results", results.productionID.uuidString], environment: env)
        #expect(shown.status == 0 && shown.stdout.contains("LOGLINE") && shown.stdout.contains("Summary of EXT. STREET - DAY.")
                && shown.stdout.contains("Description of ANNA."),
                "\(shown.stdout)\(shown.stderr)")

        let search = try await RepartoProcess.run(["search", "rain on the car", "--production", results.productionID.uuidString,
                                                   "--limit", "2", "--json"], environment: env)
        #expect(search.status == 0, "\(search.stderr)")
        let hits = try JSONDecoder().decode([SceneMatch].self, from: Data(search.stdout.utf8))
        #expect(hits.count == 2)
        #expect(hits.first?.heading == "EXT. STREET - DAY")

        // An edited script: only the changed scene is summarized again.
        let edited = Self.script.replacingOccurrences(of: "BOB files papers in the office.", with: "BOB shreds papers in the office.")
        try Data(edited.utf8).write(to: file)
        let again = try await RepartoProcess.run(["analyze", file.path, "--wait", "--json", "--timeout", "120"], environment: env)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(summaries.count.load(ordering: .relaxed) == 4, "one new summary for the edited scene")

        try await coordinator.stop()
        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func withoutAnEmbeddingProviderAnalyzeCreatesNothing() async throws {
        let cluster = try await TestCluster.make()
        let file = try CLIDocumentedTests.temporaryFile("short.fountain", Self.script)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        var env = try GenerationCLITests.environment(cluster, openAI: nil)
        env["ANTHROPIC_API_KEY"] = "sk-ant-unused"
        let output = try await RepartoProcess.run(["analyze", file.path], environment: env)
        #expect(output.status != 0)
        #expect(output.stderr.contains("no embedding provider is configured") && output.stderr.contains("OPENAI_BASE_URL="), "\(output.stderr)")
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs") == 0)
        #expect(try await cluster.count("SELECT count(*) AS n FROM analyses") == 0)
        await cluster.shutdown()
    }
}

/// Counts the summaries the stand-in wrote.
final class SummaryCounter: Sendable {
    let count = Atomic<Int>(0)
}
