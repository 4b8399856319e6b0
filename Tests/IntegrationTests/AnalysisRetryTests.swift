import Analysis
import Foundation
import Generation
import RepartoRuntime
import Providers
import RepartoTestSupport
import Screenplay
import Synchronization
import Testing

/// The analysis through the library (`AnalysisClient`: submit, await with per-stage progress,
/// results, retry; `reparto retry` of an analysis) against the real PostgreSQL and RabbitMQ, an in-process coordinator and worker,
/// and an OpenAI-compatible stand-in that fails one scene's summary until told otherwise.
@Suite("script analysis through AnalysisClient: per-stage progress, retry of only the failed scenes", .serialized,
       .timeLimit(.minutes(4)))
struct AnalysisRetryTests {
    /// What the stand-in was asked and answered (failed calls are not counted).
    final class Calls: Sendable {
        let failStreet = Atomic<Bool>(true)
        let answered = Mutex<[String: Int]>([:])

        func count(_ key: String) -> Int { answered.withLock { $0[key] ?? 0 } }
        func add(_ key: String) { answered.withLock { $0[key, default: 0] += 1 } }
    }

    static func standIn(_ calls: Calls) throws -> FakeHTTPServer {
        try AnalysisStandIn.start(intercept: { ask in
            switch ask {
            case .summary(let heading):
                if heading == "EXT. STREET - DAY" && calls.failStreet.load(ordering: .relaxed) {
                    return .respond(status: 500, headers: [], body: Data(#"{"error":{"message":"the street scene is down"}}"#.utf8))
                }
                calls.add("summary \(heading)")
            case .character: calls.add("character")
            case .logline: calls.add("logline")
            case .synopsis: calls.add("synopsis")
            case .embedding: break
            }
            return nil
        })
    }

    @Test func aFailedSceneIsRetriedAloneThenTheSynopsisIsWrittenAgain() async throws {
        let cluster = try await TestCluster.make()
        let root = try GenerationJobTests.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let calls = Calls()
        let server = try Self.standIn(calls)
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

        let client = AnalysisClient(postgres: cluster.postgres)
        let document = try ScreenplayReader.read(Array(AnalysisTests.script.utf8), fileName: "short.fountain")
        let request = AnalysisRequest(sourceName: "short.fountain", textProviders: ["openai"], embeddingProviders: ["openai"],
                                      maxAttempts: 1)
        let id = try await client.submit(document: document, request: request, name: "analysis-retry")
        let seen = Mutex<[ProductionProgress]>([])
        let first = try #require(try await client.awaitResults(id, timeout: 120) { progress in seen.withLock { $0.append(progress) } })
        #expect(first.scenes.map(\.summary) == ["Summary of INT. KITCHEN - NIGHT.", nil, "Summary of INT. OFFICE - DAY."])
        #expect(first.synopsis != nil, "the synopsis is written from the scenes that succeeded")
        let jobs = JobClient(postgres: cluster.postgres)
        let failed = try await jobs.progress(id)
        #expect(failed.state == "completed_with_failures")
        #expect(failed.stages.map(\.stage) == ["scenes", "synopsis"])
        #expect(try await client.stages(id) == [.scenes, .synopsis], "no storyboard stage when none was asked for")
        let scenes = try #require(failed.stages.first)
        #expect((scenes.total, scenes.succeeded, scenes.failed) == (3, 2, 1))
        #expect(seen.withLock { $0.last?.isFinished } == true, "progress reached the caller up to the end")
        let env = try GenerationCLITests.environment(cluster, openAI: server)
        let watch = try await RepartoProcess.run(["watch", id.uuidString, "--timeout", "30"], environment: env)
        #expect(watch.status == 0, "\(watch.stderr)")
        #expect(watch.stdout.contains("completed_with_failures: 4 succeeded, 1 failed"), "\(watch.stdout)")

        // The provider is back: `reparto retry` runs only the failed scene again, then the synopsis stage.
        calls.failStreet.store(false, ordering: .relaxed)
        let retry = try await RepartoProcess.run(["retry", id.uuidString], environment: env)
        #expect(retry.status == 0 && retry.stdout.contains("requeued 1 job"), "\(retry.stdout)\(retry.stderr)")
        let second = try #require(try await client.awaitResults(id, timeout: 120))
        #expect(second.scenes.map(\.summary) == ["Summary of INT. KITCHEN - NIGHT.", "Summary of EXT. STREET - DAY.",
                                                 "Summary of INT. OFFICE - DAY."])
        #expect(second.scenes.allSatisfy { $0.embedded })
        let done = try await jobs.progress(id)
        #expect(done.state == "completed")
        #expect(calls.count("summary INT. KITCHEN - NIGHT") == 1 && calls.count("summary INT. OFFICE - DAY") == 1,
                "the scenes that succeeded were not asked again")
        #expect(calls.count("summary EXT. STREET - DAY") == 1)
        #expect(calls.count("synopsis") == 2, "a new synopsis from the three summaries")
        #expect(calls.count("character") == 1, "the character description is answered from its stored row")
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE production_id = $1 AND kind = 'analysis.scene'", [id]) == 3)
        #expect(try await client.retry(id) == 0, "nothing left to retry")

        try await coordinator.stop()
        try await worker.stop()
        await cluster.shutdown()
    }
}
