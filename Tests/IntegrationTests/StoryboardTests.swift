import Analysis
import Assets
import Foundation
import Generation
import RepartoRuntime
import Providers
import RepartoTestSupport
import Screenplay
import Synchronization
import Testing

/// `reparto analyze --storyboard` end to end: a frame per scene drawn by the OpenAI images
/// stand-in (`b64_json`) after the scene's summary, PNGs on the asset volume with checksums,
/// `results` showing them, reuse after an edit, retry of only the failed frames.
@Suite("storyboard", .serialized, .timeLimit(.minutes(4)))
struct StoryboardTests {
    /// Images: a PNG whose bytes name the prompt's scene; a prompt naming `failing` is refused.
    final class Images: Sendable {
        let prompts = Mutex<[String]>([])
        let failing = Mutex<String?>(nil)
        /// A prompt naming this waits for ``release`` before it is answered (a slow provider).
        let holding = Mutex<String?>(nil)
        let release = DispatchSemaphore(value: 0)

        func reply(_ request: FakeHTTPServer.Request) -> FakeHTTPServer.Reply {
            let json = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any]) ?? [:]
            let prompt = json["prompt"] as? String ?? ""
            prompts.withLock { $0.append(prompt) }
            if let holding = holding.withLock({ $0 }), prompt.contains(holding) {
                release.wait()  // the stand-in's own connection thread, not the test's
            }
            if let failing = failing.withLock({ $0 }), prompt.contains(failing) {
                return ProviderStandIns.openAIError(400, message: "Your request was rejected by the safety system.",
                                                    type: "invalid_request_error", code: "content_policy_violation")
            }
            return ProviderStandIns.openAIImage(ProviderStandIns.png + Data(prompt.utf8))
        }

        func count(_ text: String) -> Int { prompts.withLock { $0.filter { $0.contains(text) }.count } }
    }

    struct Setup {
        let cluster: TestCluster
        let root: URL
        let server: FakeHTTPServer
        let worker: RunningService
        let coordinator: RunningService
    }

    static func start(_ images: Images, summaries: SummaryCounter) async throws -> Setup {
        let cluster = try await TestCluster.make()
        let root = try GenerationJobTests.temporaryRoot()
        let server = try AnalysisTests.standIn(summaries: summaries) { images.reply($0) }
        let providers = GenerationProviderRegistry([
            OpenAICompatibleProvider(configuration: .init(baseURL: server.baseURL, apiKey: nil, textModel: "llama3.2",
                                                          embeddingModel: "nomic-embed-text", imageModel: "dall-e-2", timeout: StandInTimeout.seconds)),
        ])
        let registry = JobRegistry()
        let environment = GenerationEnvironment(assetsRoot: root, providers: providers, postgres: cluster.postgres)
        GenerationKinds.register(in: registry, environment: environment)
        AnalysisKinds.register(in: registry, environment: environment)
        return Setup(cluster: cluster, root: root, server: server, worker: cluster.startWorker(registry: registry),
                     coordinator: cluster.startCoordinator(plans: AnalysisKinds.plans))
    }

    static func stop(_ setup: Setup) async throws {
        try await setup.coordinator.stop()
        try await setup.worker.stop()
        setup.server.stop()
        try? FileManager.default.removeItem(at: setup.root)
        await setup.cluster.shutdown()
    }

    @Test func framesAreDrawnFromSummariesStoredWithChecksumsShownAndReusedAfterAnEdit() async throws {
        let images = Images()
        let summaries = SummaryCounter()
        let setup = try await Self.start(images, summaries: summaries)
        let file = try CLIDocumentedTests.temporaryFile("short.fountain", AnalysisTests.script)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        var env = try GenerationCLITests.environment(setup.cluster, openAI: setup.server)
        env["OPENAI_TEXT_MODEL"] = "llama3.2"
        env["OPENAI_EMBEDDING_MODEL"] = "nomic-embed-text"
        env["OPENAI_IMAGE_MODEL"] = "dall-e-2"
        env["REPARTO_ASSETS"] = setup.root.path

        let analyze = try await RepartoProcess.run(["analyze", file.path, "--storyboard", "--image-provider", "openai",
                                                    "--image-size", "512x512", "--wait", "--json", "--timeout", "120"], environment: env)
        #expect(analyze.status == 0, "\(analyze.stderr)")
        let results = try JSONDecoder().decode(AnalysisResults.self, from: Data(String(analyze.stdout.drop { $0 != "{" }).utf8))
        #expect(results.scenes.count == 3)
        for scene in results.scenes {
            let frame = try #require(scene.frame, "scene \(scene.index) has a frame")
            #expect(frame.provider == "openai")
            #expect(frame.path.hasPrefix("cache/image/") && frame.path.hasSuffix(".png"), "\(frame.path)")
            #expect(frame.file == setup.root.appendingPathComponent(frame.path).path)
            let bytes = try Data(contentsOf: setup.root.appendingPathComponent(frame.path))
            #expect(bytes.starts(with: GeneratedImage.pngSignature))
            #expect(AssetStore.sha256(bytes) == frame.sha256, "the stored checksum is the file's")
        }
        // Each frame's prompt is written from its scene's heading and summary (so it waited for it).
        #expect(images.count("INT. KITCHEN - NIGHT\nSummary of INT. KITCHEN - NIGHT.") == 1, "\(images.prompts.withLock { $0 })")
        #expect(images.prompts.withLock { $0.count } == 3)
        let sent = try #require(setup.server.requests.first { $0.path == "/v1/images/generations" })
        let body = try #require(try JSONSerialization.jsonObject(with: sent.body) as? [String: Any])
        #expect(body["response_format"] as? String == "b64_json" && body["size"] as? String == "512x512")

        let progress = try await JobClient(postgres: setup.cluster.postgres).progress(results.productionID)
        #expect(progress.stages.map(\.stage) == ["scenes", "synopsis", "storyboard"])
        let storyboard = try #require(progress.stages.last)
        #expect((storyboard.total, storyboard.succeeded) == (3, 3))
        #expect(try await setup.cluster.count("""
            SELECT count(*) AS n FROM jobs WHERE kind = 'analysis.frame' AND limit_key = 'provider:openai'
            """) == 3, "every frame runs under the image provider's limit")
        #expect(try await setup.cluster.count("""
            SELECT count(*) AS n FROM generation_usage WHERE capability = 'image' AND images = 1 AND NOT reused AND production_id = $1
            """, [results.productionID]) == 3)

        let shown = try await RepartoProcess.run(["results", results.productionID.uuidString], environment: env)
        let streetFrame = try #require(results.scenes[1].frame)
        let framePath = setup.root.appendingPathComponent(streetFrame.path).path
        #expect(shown.status == 0 && shown.stdout.contains("frame: \(framePath)"), "\(shown.stdout)\(shown.stderr)")

        // An edited scene (the stand-in's summary follows the heading): its summary changes, so
        // only its frame is drawn again.
        let edited = AnalysisTests.script.replacingOccurrences(of: "INT. OFFICE - DAY", with: "INT. OFFICE - NIGHT")
        try Data(edited.utf8).write(to: file)
        let again = try await RepartoProcess.run(["analyze", file.path, "--storyboard", "--image-size", "512x512", "--wait", "--json",
                                                  "--timeout", "120"], environment: env)
        #expect(again.status == 0, "\(again.stderr)")
        let second = try JSONDecoder().decode(AnalysisResults.self, from: Data(String(again.stdout.drop { $0 != "{" }).utf8))
        #expect(second.scenes.allSatisfy { $0.frame != nil })
        #expect(second.scenes[0].frame?.path == results.scenes[0].frame?.path, "an unchanged scene reuses its frame")
        #expect(images.prompts.withLock { $0.count } == 4, "one new frame, for the edited scene")
        #expect(try await setup.cluster.count("""
            SELECT count(*) AS n FROM generation_usage WHERE capability = 'image' AND reused AND production_id = $1
            """, [second.productionID]) == 2)
        try await Self.stop(setup)
    }

    @Test func aRefusedFrameFailsAloneAndRetryDrawsOnlyIt() async throws {
        let images = Images()
        images.failing.withLock { $0 = "EXT. STREET - DAY" }
        let setup = try await Self.start(images, summaries: SummaryCounter())
        let client = AnalysisClient(postgres: setup.cluster.postgres, assetsRoot: setup.root)
        let document = try ScreenplayReader.read(Array(AnalysisTests.script.utf8), fileName: "short.fountain")
        let request = AnalysisRequest(sourceName: "short.fountain", textProviders: ["openai"], embeddingProviders: ["openai"],
                                      maxAttempts: 1, storyboard: StoryboardRequest(imageProviders: ["openai"], size: "256x256"))
        let id = try await client.submit(document: document, request: request, name: "storyboard-retry")
        let first = try #require(try await client.awaitResults(id, timeout: 120))
        #expect(first.scenes.map { $0.frame != nil } == [true, false, true])
        #expect(first.synopsis != nil)
        let jobs = JobClient(postgres: setup.cluster.postgres)
        let failed = try await jobs.progress(id)
        #expect(failed.state == "completed_with_failures")
        let frames = try #require(failed.stages.last)
        #expect((frames.stage, frames.succeeded, frames.failed) == ("storyboard", 2, 1))

        images.failing.withLock { $0 = nil }
        #expect(try await client.retry(id) == 1, "only the refused frame")
        let second = try #require(try await client.awaitResults(id, timeout: 120))
        #expect(second.scenes.allSatisfy { $0.frame != nil })
        #expect(try await jobs.progress(id).state == "completed")
        #expect(images.count("INT. KITCHEN - NIGHT") == 1 && images.count("INT. OFFICE - DAY") == 1, "drawn frames are not asked again")
        #expect(images.count("EXT. STREET - DAY") == 2)
        try await Self.stop(setup)
    }

    @Test func aCancelledStoryboardKeepsItsFramesAndRetryDrawsOnlyTheRest() async throws {
        let images = Images()
        images.holding.withLock { $0 = "INT. OFFICE - DAY" }
        let setup = try await Self.start(images, summaries: SummaryCounter())
        let client = AnalysisClient(postgres: setup.cluster.postgres, assetsRoot: setup.root)
        let document = try ScreenplayReader.read(Array(AnalysisTests.script.utf8), fileName: "short.fountain")
        let request = AnalysisRequest(sourceName: "short.fountain", textProviders: ["openai"], embeddingProviders: ["openai"],
                                      maxAttempts: 1, storyboard: StoryboardRequest(imageProviders: ["openai"], size: "256x256"))
        let id = try await client.submit(document: document, request: request, name: "storyboard-cancel")
        let cluster = setup.cluster
        try await cluster.wait(for: "two frames drawn and the third asked for") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE kind = 'analysis.frame' AND state = 'succeeded'") == 2
                && images.count("INT. OFFICE - DAY") == 1
        }
        let jobs = JobClient(postgres: cluster.postgres)
        try await jobs.cancel(id)
        // The running frame stops at its worker's next heartbeat, while the provider still holds it.
        try await cluster.wait(for: "the running frame cancelled") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE kind = 'analysis.frame' AND state = 'cancelled'") == 1
        }
        let stopped = try await jobs.awaitProduction(id, timeout: 60)
        images.holding.withLock { $0 = nil }
        images.release.signal()
        #expect(stopped.state == "cancelled")
        let partial = try #require(try await client.results(id))
        #expect(partial.scenes.map { $0.frame != nil } == [true, true, false], "finished frames stay")

        #expect(try await client.retry(id) == 1, "only the cancelled frame")
        let done = try #require(try await client.awaitResults(id, timeout: 120))
        #expect(done.scenes.allSatisfy { $0.frame != nil })
        #expect(try await jobs.progress(id).state == "completed")
        #expect(try await client.stages(id) == [.scenes, .synopsis, .storyboard], "watch shows the storyboard stage")
        #expect(images.count("INT. KITCHEN - NIGHT") == 1 && images.count("EXT. STREET - DAY") == 1, "drawn frames are not asked again")
        #expect(images.count("INT. OFFICE - DAY") == 2)
        try await Self.stop(setup)
    }

    @Test func withoutAnImageProviderTheStoryboardSaysWhatToSetAndCreatesNothing() async throws {
        let cluster = try await TestCluster.make()
        let file = try CLIDocumentedTests.temporaryFile("short.fountain", AnalysisTests.script)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        var env = try GenerationCLITests.environment(cluster, openAI: nil)
        env["ANTHROPIC_API_KEY"] = "sk-ant-unused"
        let output = try await RepartoProcess.run(["analyze", file.path, "--storyboard"], environment: env)
        #expect(output.status != 0)
        #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
        #expect(output.stderr.contains("no image provider is configured") && output.stderr.contains("OPENAI_BASE_URL="), "\(output.stderr)")
        let wrong = try await RepartoProcess.run(["analyze", file.path, "--storyboard", "--image-provider", "anthropic"], environment: env)
        #expect(wrong.status != 0 && wrong.stderr.contains("provider anthropic cannot generate image"), "\(wrong.stderr)")
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs") == 0)
        #expect(try await cluster.count("SELECT count(*) AS n FROM analyses") == 0)
        await cluster.shutdown()
    }
}
