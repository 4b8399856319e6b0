import Analysis
import Foundation
import Generation
import RepartoRuntime
import Providers
import RepartoTestSupport
import Screenplay
import Synchronization
import Testing

/// Cancelling a running analysis while its scene jobs wait, and retrying it, against the real
/// servers: a worker running one job at a time and an OpenAI-compatible stand-in that summarizes
/// the first scene it is asked about and holds the next, so at the cancel one scene job has
/// finished, one is running and three wait.
@Suite("analysis: cancel while scenes wait, then retry", .timeLimit(.minutes(4)))
struct AnalysisCancelRetryTests {
    static let headings = ["INT. KITCHEN - NIGHT", "EXT. STREET - DAY", "INT. OFFICE - DAY", "EXT. HARBOUR - DAWN", "INT. ATTIC - NIGHT"]

    static let script = """
        INT. KITCHEN - NIGHT

        The kettle screams. ANNA pours tea.

        ANNA
        The kettle again.

        EXT. STREET - DAY

        Rain hammers a parked car.

        INT. OFFICE - DAY

        BOB files papers.

        EXT. HARBOUR - DAWN

        Gulls circle a moored ferry.

        INT. ATTIC - NIGHT

        A trunk creaks open.
        """

    /// Every request the stand-in received, by what it asked ("summary HEADING", "synopsis", …).
    final class Asked: Sendable {
        let counts = Mutex<[String: Int]>([:])
        func add(_ key: String) { counts.withLock { $0[key, default: 0] += 1 } }
        func count(_ key: String) -> Int { counts.withLock { $0[key] ?? 0 } }
        var all: [String: Int] { counts.withLock { $0 } }
    }

    static func standIn(_ gate: HeldStandIn, _ asked: Asked) throws -> FakeHTTPServer {
        try AnalysisStandIn.start(intercept: { ask in
            switch ask {
            case .summary(let heading):
                asked.add("summary \(heading)")
                guard gate.admit(heading) else {
                    return .respond(status: 503, headers: [], body: Data(#"{"error":{"message":"held too long"}}"#.utf8))
                }
            case .character: asked.add("character")
            case .logline: asked.add("logline")
            case .synopsis: asked.add("synopsis")
            case .embedding: asked.add("embedding")
            }
            return nil
        })
    }

    @Test func aCancelledAnalysisKeepsItsFinishedSceneAndItsRetryRunsOnlyTheOthers() async throws {
        let cluster = try await TestCluster.make()
        let root = try GenerationJobTests.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let gate = HeldStandIn(free: 1)
        let asked = Asked()
        let server = try Self.standIn(gate, asked)
        defer { server.stop() }
        let providers = GenerationProviderRegistry([
            OpenAICompatibleProvider(configuration: .init(baseURL: server.baseURL, apiKey: nil, textModel: "llama3.2",
                                                          embeddingModel: "nomic-embed-text", timeout: StandInTimeout.seconds)),
        ])
        let registry = JobRegistry()
        let environment = GenerationEnvironment(assetsRoot: root, providers: providers, postgres: cluster.postgres)
        GenerationKinds.register(in: registry, environment: environment)
        AnalysisKinds.register(in: registry, environment: environment)
        // One job at a time: while the held scene's job runs, the other scenes wait.
        let worker = cluster.startWorker(registry: registry, concurrency: 1, prefetch: 1)
        let coordinator = cluster.startCoordinator(plans: AnalysisKinds.plans)

        let client = AnalysisClient(postgres: cluster.postgres)
        let document = try ScreenplayReader.read(Array(Self.script.utf8), fileName: "five.fountain")
        let id = try await client.submit(document: document, request: AnalysisRequest(
            sourceName: "five.fountain", textProviders: ["openai"], embeddingProviders: ["openai"]), name: "analysis-cancel")
        @Sendable func scenes(_ state: String) async throws -> Int {
            try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE production_id = $1 AND kind = 'analysis.scene' AND state = $2",
                                    [id, state])
        }
        try await cluster.wait(timeout: 90, for: "one scene summarized and the next one's job held by the stand-in") {
            let (succeeded, running) = (try await scenes("succeeded"), try await scenes("running"))
            return succeeded == 1 && running == 1 && gate.held.count == 1
        }
        #expect(try await scenes("queued") == 3, "three scene jobs wait behind the held one")
        let finishedScene = try #require(try await cluster.postgres.query("""
            SELECT id, finished_at FROM jobs WHERE production_id = $1 AND kind = 'analysis.scene' AND state = 'succeeded'
            """, [id]).first.map { [$0.string("id"), $0.string("finished_at")] })

        try await cluster.client.cancel(id)
        try await cluster.wait(timeout: 60, for: "the held scene job and the waiting ones cancelled") { try await scenes("cancelled") == 4 }
        #expect(try await cluster.client.progress(id).state == "cancelled")
        let summarized = try #require(gate.answered.first)
        let heldHeading = try #require(gate.held.first)
        let cancelled = try #require(try await client.results(id))
        #expect(cancelled.scenes.map(\.heading) == Self.headings)
        #expect(cancelled.scenes.compactMap(\.summary) == ["Summary of \(summarized)."], "the finished scene keeps its summary")
        #expect(cancelled.synopsis == nil, "the synopsis stage never started")
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE production_id = $1 AND kind <> 'analysis.scene'", [id]) == 0)
        #expect(try await cluster.count("""
            SELECT count(*)::int AS n FROM jobs WHERE production_id = $1 AND state = 'cancelled' AND last_error = 'cancelled while running'
            """, [id]) == 1, "the held job was stopped while running")

        gate.openEverything()
        #expect(try await client.retry(id) == 4, "only the cancelled scenes run again")
        let done = try #require(try await client.awaitResults(id, timeout: 120))
        #expect(try await cluster.client.progress(id).state == "completed")
        #expect(done.scenes.map(\.summary) == Self.headings.map { "Summary of \($0)." })
        #expect(done.scenes.allSatisfy { $0.embedded })
        #expect(done.synopsis == AnalysisStandIn.synopsis)
        #expect(try await scenes("succeeded") == 5)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE production_id = $1 AND kind = 'analysis.scene'", [id]) == 5,
                "no new scene job")
        let stillFinished = try await cluster.postgres.query("SELECT id, finished_at FROM jobs WHERE id = $1", [finishedScene[0]])
            .first.map { [$0.string("id"), $0.string("finished_at")] }
        #expect(stillFinished == finishedScene, "the finished scene's job was not run again")

        // Summaries asked exactly: the finished scene once, the held one twice (the held request
        // and its retry), the three that waited once; one synopsis, one character description.
        #expect(asked.count("summary \(summarized)") == 1 && asked.count("summary \(heldHeading)") == 2, "\(asked.all)")
        for heading in Self.headings where heading != summarized && heading != heldHeading {
            #expect(asked.count("summary \(heading)") == 1, "\(heading): \(asked.all)")
        }
        #expect(asked.count("synopsis") == 1 && asked.count("character") == 1, "\(asked.all)")
        #expect(try await client.retry(id) == 0, "nothing left to retry")

        try await coordinator.stop()
        try await worker.stop()
        await cluster.shutdown()
    }
}
