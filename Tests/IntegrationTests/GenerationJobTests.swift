import ProviderControl
import Assets
import Foundation
import Generation
import RepartoRuntime
import Postgres
import Providers
import RepartoConfiguration
import RepartoTestSupport
import Synchronization
import Testing

/// `generate-text`, `embed` and `generate-image` against the real PostgreSQL and RabbitMQ, with
/// local stand-ins speaking the OpenAI and Anthropic wire formats.
@Suite("generation jobs", .serialized, .timeLimit(.minutes(4)))
struct GenerationJobTests {
    static func temporaryRoot() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-generation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func registry(root: URL, cluster: TestCluster, openAI: FakeHTTPServer, anthropic: FakeHTTPServer?) -> JobRegistry {
        var providers: [any GenerationProvider] = [
            OpenAICompatibleProvider(configuration: .init(baseURL: openAI.baseURL + "/v1", apiKey: nil, textModel: "llama3.2",
                                                          embeddingModel: "nomic-embed-text", imageModel: "dall-e-2",
                                                          embeddingBatchSize: 2, timeout: StandInTimeout.seconds)),
        ]
        if let anthropic {
            providers.append(AnthropicProvider(configuration: .init(baseURL: anthropic.baseURL, apiKey: Secret("sk-ant-test"), timeout: StandInTimeout.seconds)))
        }
        let registry = JobRegistry()
        GenerationKinds.register(in: registry, environment: GenerationEnvironment(
            assetsRoot: root, providers: GenerationProviderRegistry(providers), postgres: cluster.postgres))
        return registry
    }

    /// A stand-in OpenAI-compatible server: chat answers "Answer N", embeddings [len, index-in-batch], images a PNG.
    static func openAIStandIn() throws -> FakeHTTPServer {
        let chats = Atomic<Int>(0)
        return try FakeHTTPServer { request in
            switch request.path {
            case "/v1/chat/completions":
                let n = chats.add(1, ordering: .relaxed).newValue
                return ProviderStandIns.openAIChat("Answer \(n)", model: "llama3.2", promptTokens: 11, completionTokens: 3)
            case "/v1/embeddings":
                let json = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any]) ?? [:]
                let texts = json["input"] as? [String] ?? []
                return ProviderStandIns.openAIEmbeddings(texts.map { [Float($0.count), 0.5, -1] }, model: "nomic-embed-text",
                                                         promptTokens: texts.count * 2)
            case "/v1/images/generations":
                return ProviderStandIns.openAIImage(ProviderStandIns.png)
            default:
                return .respond(status: 404, headers: [], body: Data())
            }
        }
    }

    @Test func textFallsBackAfterA401AndIsReusedUnlessFresh() async throws {
        let cluster = try await TestCluster.make()
        let root = try Self.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let openAI = try Self.openAIStandIn()
        defer { openAI.stop() }
        let anthropic = try FakeHTTPServer { _ in
            ProviderStandIns.anthropicError(401, type: "authentication_error", message: "invalid x-api-key")
        }
        defer { anthropic.stop() }
        let worker = cluster.startWorker(registry: Self.registry(root: root, cluster: cluster, openAI: openAI, anthropic: anthropic))

        let job = GenerateTextJob(providers: ["anthropic", "openai"],
                                  request: TextGenerationRequest(prompt: "A logline, please", system: "Screenwriter", maxTokens: 40))
        let first = try await cluster.client.awaitJob(try await cluster.client.enqueue(job), timeout: 60)
        #expect(first.state == .succeeded, "\(first.lastError ?? "")")
        let result = try #require(try first.decodeResult(GenerateTextJob.Result.self))
        #expect(result.provider == "openai")
        #expect(result.text == "Answer 1")
        #expect(!result.reused)
        #expect(result.failures.count == 1)
        #expect(result.failures.first?.hasPrefix("anthropic:") == true)

        let rows = try await cluster.postgres.query(
            "SELECT mime_type, inline_text, provider, model, content_key FROM generated_content WHERE content_key = $1", [result.contentKey])
        #expect(rows.count == 1)
        #expect(rows.first?.string("inline_text") == "Answer 1")
        #expect(rows.first?.string("provider") == "openai")
        #expect(rows.first?.string("model") == "llama3.2")
        #expect(try await cluster.count("SELECT count(*) AS n FROM generation_providers WHERE id = 'anthropic' AND NOT configured") == 1)
        #expect(try await cluster.count("""
            SELECT count(*) AS n FROM generation_usage WHERE provider = 'openai' AND capability = 'text'
              AND input_tokens = 11 AND output_tokens = 3 AND NOT reused
            """) == 1)

        let second = try await cluster.client.awaitJob(try await cluster.client.enqueue(job), timeout: 60)
        let reused = try #require(try second.decodeResult(GenerateTextJob.Result.self))
        #expect(reused.reused)
        #expect(reused.text == "Answer 1")
        #expect(openAI.requests.filter { $0.path == "/v1/chat/completions" }.count == 1, "a reuse asks nobody")

        var freshJob = job
        freshJob.fresh = true
        let third = try await cluster.client.awaitJob(try await cluster.client.enqueue(freshJob), timeout: 60)
        let fresh = try #require(try third.decodeResult(GenerateTextJob.Result.self))
        #expect(!fresh.reused)
        #expect(fresh.text == "Answer 2")
        #expect(try await cluster.count("SELECT count(*) AS n FROM generated_content WHERE content_key = $1 AND inline_text = 'Answer 2'",
                                        [result.contentKey]) == 1)
        #expect(try await cluster.count("SELECT count(*) AS n FROM generation_usage WHERE reused") == 1)

        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func embeddingsAreStoredAsFloatArraysAndReusedPerText() async throws {
        let cluster = try await TestCluster.make()
        let root = try Self.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let openAI = try Self.openAIStandIn()
        defer { openAI.stop() }
        let worker = cluster.startWorker(registry: Self.registry(root: root, cluster: cluster, openAI: openAI, anthropic: nil))

        let texts = ["a", "bb", "ccc"]
        let done = try await cluster.client.awaitJob(try await cluster.client.enqueue(EmbedJob(providers: ["openai"], texts: texts)), timeout: 60)
        #expect(done.state == .succeeded, "\(done.lastError ?? "")")
        let result = try #require(try done.decodeResult(EmbedJob.Result.self))
        #expect(result.dimensions == 3)
        #expect(result.contentIDs.count == 3)
        #expect(result.reused == 0)
        #expect(openAI.requests.filter { $0.path == "/v1/embeddings" }.count == 2, "batches of 2")
        let rows = try await cluster.postgres.query("""
            SELECT embedding[1] AS first, embedding_dimensions, embedding_model, mime_type FROM generated_content
            WHERE content_key = ANY($1) ORDER BY embedding[1]
            """, [result.contentKeys])
        #expect(rows.map { $0.double("first") } == [1, 2, 3])
        #expect(rows.allSatisfy { $0.int("embedding_dimensions") == 3 && $0.string("embedding_model") == "nomic-embed-text" })
        #expect(rows.allSatisfy { $0.string("mime_type") == "application/x-embedding" })

        let again = try await cluster.client.awaitJob(
            try await cluster.client.enqueue(EmbedJob(providers: ["openai"], texts: ["bb", "dddd"])), timeout: 60)
        let second = try #require(try again.decodeResult(EmbedJob.Result.self))
        #expect(second.reused == 1)
        let lastBody = try #require(openAI.requests.last { $0.path == "/v1/embeddings" }?.body)
        let sent = try #require(try JSONSerialization.jsonObject(with: lastBody) as? [String: Any])
        #expect(sent["input"] as? [String] == ["dddd"], "only the new text is sent")

        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func anImageIsAPNGOnTheVolumeWithItsChecksum() async throws {
        let cluster = try await TestCluster.make()
        let root = try Self.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let openAI = try Self.openAIStandIn()
        defer { openAI.stop() }
        let worker = cluster.startWorker(registry: Self.registry(root: root, cluster: cluster, openAI: openAI, anthropic: nil))

        let job = GenerateImageJob(providers: ["openai"], request: ImageRequest(prompt: "a red dot", size: "256x256"))
        let done = try await cluster.client.awaitJob(try await cluster.client.enqueue(job), timeout: 60)
        #expect(done.state == .succeeded, "\(done.lastError ?? "")")
        let result = try #require(try done.decodeResult(GenerateImageJob.Result.self))
        let data = try await AssetStore(root: root).read(result.path)
        #expect(data == ProviderStandIns.png)
        #expect(AssetStore.sha256(data) == result.sha256)
        #expect(result.path.hasSuffix(".png"))
        #expect(try await cluster.count("""
            SELECT count(*) AS n FROM generated_content WHERE file_path = $1 AND mime_type = 'image/png' AND sha256 = $2
            """, [result.path, result.sha256]) == 1)
        #expect(try await cluster.count("SELECT count(*) AS n FROM generation_usage WHERE capability = 'image' AND images = 1") == 1)

        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func aRateLimitIsRetriedAtRetryAfterAndMalformedAnswersEndDeadWithTheirFirstBytes() async throws {
        let cluster = try await TestCluster.make()
        let root = try Self.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let calls = Atomic<Int>(0)
        let openAI = try FakeHTTPServer { request in
            if request.body.range(of: Data("malformed".utf8)) != nil { return ProviderStandIns.malformed }
            let n = calls.add(1, ordering: .relaxed).newValue
            return n == 1 ? ProviderStandIns.openAIRateLimited(retryAfter: 1) : ProviderStandIns.openAIChat("after the wait")
        }
        defer { openAI.stop() }
        let worker = cluster.startWorker(registry: Self.registry(root: root, cluster: cluster, openAI: openAI, anthropic: nil))

        let limited = try await cluster.client.awaitJob(
            try await cluster.client.enqueue(GenerateTextJob(providers: ["openai"], request: TextGenerationRequest(prompt: "hello"))), timeout: 60)
        #expect(limited.state == .succeeded, "\(limited.lastError ?? "")")
        #expect(try limited.decodeResult(GenerateTextJob.Result.self)?.text == "after the wait")
        #expect(calls.load(ordering: .relaxed) == 2)

        let malformed = try await cluster.client.awaitJob(
            try await cluster.client.enqueue(GenerateTextJob(providers: ["openai"], request: TextGenerationRequest(prompt: "malformed")),
                                             options: JobOptions(maxAttempts: 2)), timeout: 90)
        #expect(malformed.state == .dead)
        #expect(malformed.lastError?.contains("<html><body>Bad gateway") == true, "\(malformed.lastError ?? "")")

        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func anExhaustedProviderFallsBackOnTheLastAttemptAndADisabledOneIsSkipped() async throws {
        let cluster = try await TestCluster.make()
        let root = try Self.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let openAI = try FakeHTTPServer { _ in
            ProviderStandIns.openAIError(500, message: "The server had an error while processing your request.", type: "server_error", code: nil)
        }
        defer { openAI.stop() }
        let anthropic = try FakeHTTPServer { _ in ProviderStandIns.anthropicMessage("FADE IN:", inputTokens: 5, outputTokens: 2) }
        defer { anthropic.stop() }
        let registry = Self.registry(root: root, cluster: cluster, openAI: openAI, anthropic: anthropic)
        let worker = cluster.startWorker(registry: registry)

        // openai fails with 500 on both attempts: the first attempt is retried, the last one moves on.
        let job = GenerateTextJob(providers: ["openai", "anthropic"], request: TextGenerationRequest(prompt: "Begin"))
        let done = try await cluster.client.awaitJob(try await cluster.client.enqueue(job, options: JobOptions(maxAttempts: 2)), timeout: 90)
        #expect(done.state == .succeeded, "\(done.lastError ?? "")")
        #expect(done.attempts == 2)
        let result = try #require(try done.decodeResult(GenerateTextJob.Result.self))
        #expect(result.provider == "anthropic")
        #expect(result.text == "FADE IN:")
        #expect(result.failures.count == 1 && result.failures[0].contains("HTTP 500"), "\(result.failures)")
        #expect(openAI.requests.count == 2)
        #expect(try await cluster.count("SELECT count(*) AS n FROM generated_content WHERE provider = 'anthropic'") == 1)

        // Disabled by an operator: skipped without a request.
        let directory = GenerationProviderDirectory(postgres: cluster.postgres)
        try await directory.record(GenerationProviderRegistry([
            OpenAICompatibleProvider(configuration: .init(baseURL: openAI.baseURL, apiKey: nil)),
        ]))
        #expect(try await directory.setEnabled(false, provider: "openai"))
        let skipped = try await cluster.client.awaitJob(try await cluster.client.enqueue(
            GenerateTextJob(providers: ["openai", "anthropic"], request: TextGenerationRequest(prompt: "Again"))), timeout: 60)
        #expect(skipped.state == .succeeded, "\(skipped.lastError ?? "")")
        let second = try #require(try skipped.decodeResult(GenerateTextJob.Result.self))
        #expect(second.provider == "anthropic")
        #expect(second.failures.first?.contains("disabled") == true, "\(second.failures)")
        #expect(openAI.requests.count == 2, "a disabled provider is not asked")

        try await worker.stop()
        await cluster.shutdown()
    }
}
