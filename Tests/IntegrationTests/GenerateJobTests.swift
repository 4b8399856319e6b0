import SpeechJobs
import Assets
import Foundation
import RepartoRuntime
import TableRead
import Postgres
import Speech
import Synchronization
import Testing

/// The `generate` job against the real PostgreSQL, RabbitMQ and espeak-ng, and the voice cache.
@Suite("generate job and speech tables", .serialized, .timeLimit(.minutes(3)))
struct GenerateJobTests {
    /// A fresh asset root for one test.
    static func temporaryRoot() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-generate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func registry(root: URL) -> JobRegistry {
        let registry = JobRegistry()
        SpeechJob.register(in: registry, environment: SpeechEnvironment(assetsRoot: root))
        return registry
    }

    /// Every regular file below `root` (relative paths), sorted.
    static func files(under root: URL) -> [String] {
        let base = root.resolvingSymlinksInPath().path
        guard let walker = FileManager.default.enumerator(atPath: base) else { return [] }
        var files: [String] = []
        while let path = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: base + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(path)
            }
        }
        return files.sorted()
    }

    static let lines = [
        SpeechJob.Item(text: "INT. KITCHEN - NIGHT. The kettle screams.", voice: "en-us",
                         owner: .init(kind: .element, id: "doc-1/0/0")),
        SpeechJob.Item(text: "I told you not to wait up.", voice: "en-us+Alicia", language: "en-us",
                         owner: .init(kind: .element, id: "doc-1/0/1")),
        SpeechJob.Item(text: "Somebody had to.", voice: "en-gb", provider: "espeak-ng",
                         options: SynthesisOptions(speed: 1.2), owner: .init(kind: .document, id: "doc-1")),
    ]

    @Test func threeLinesAreGeneratedOnceAndReusedAfter() async throws {
        let cluster = try await TestCluster.make()
        let root = try Self.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let worker = cluster.startWorker(registry: Self.registry(root: root))

        let first = try await cluster.client.enqueue(SpeechJob(items: Self.lines))
        let done = try await cluster.client.awaitJob(first, timeout: 90)
        #expect(done.state == .succeeded, "\(done.lastError ?? "")")
        let result = try #require(try done.decodeResult(SpeechJob.Result.self))
        #expect(result.items.count == 3)
        #expect(result.items.allSatisfy { !$0.reused && $0.durationSeconds > 0 })

        let rows = try await cluster.postgres.query("""
            SELECT mime_type, owner_kind, owner_id, file_path, size_bytes, sha256, content_key, duration_seconds,
                   peak_dbfs, rms_dbfs, job_id
            FROM generated_content ORDER BY owner_id, file_path
            """)
        #expect(rows.count == 3)
        let store = try AssetStore(root: root)
        for row in rows {
            #expect(row.string("mime_type") == "audio/wav")
            #expect((row.double("duration_seconds") ?? 0) > 0)
            #expect((row.double("peak_dbfs") ?? 0) < 0.01)
            #expect(row.double("rms_dbfs") != nil)
            #expect(row.uuid("job_id") == first)
            let path = try #require(row.string("file_path"))
            let data = try await store.read(path)
            #expect(Int64(data.count) == row.int64("size_bytes"))
            #expect(AssetStore.sha256(data) == row.string("sha256"))
            #expect(data.prefix(4) == Data("RIFF".utf8))
            #expect(result.items.contains { $0.path == path && $0.contentKey == row.string("content_key") })
        }
        #expect(Set(rows.compactMap { $0.string("owner_kind") }) == ["element", "document"])
        let filesAfterFirst = Self.files(under: root).filter { $0.hasSuffix(".wav") }
        #expect(filesAfterFirst.count == 3)

        // The same lines again: nothing is synthesized, no file and no row is added.
        // A reuse claims the file (its modification time moves, see docs/assets.md) but never
        // rewrites it: an atomic rewrite would give it a new inode.
        func inodes() throws -> [UInt64?] {
            try filesAfterFirst.map { try (FileManager.default.attributesOfItem(atPath: root.path + "/" + $0)[.systemFileNumber] as? NSNumber)?.uint64Value }
        }
        let inodesBefore = try inodes()
        let second = try await cluster.client.enqueue(SpeechJob(items: Self.lines))
        let again = try await cluster.client.awaitJob(second, timeout: 90)
        #expect(again.state == .succeeded, "\(again.lastError ?? "")")
        let reused = try #require(try again.decodeResult(SpeechJob.Result.self))
        #expect(reused.items.allSatisfy { $0.reused })
        #expect(reused.items.map(\.path) == result.items.map(\.path))
        #expect(reused.items.map(\.durationSeconds) == result.items.map(\.durationSeconds))
        #expect(Self.files(under: root).filter { $0.hasSuffix(".wav") } == filesAfterFirst)
        #expect(try inodes() == inodesBefore && !inodesBefore.contains(nil))
        #expect(try await cluster.count("SELECT count(*) AS n FROM generated_content") == 3)
        #expect(try await cluster.count("SELECT count(*) AS n FROM generated_content WHERE job_id = $1", [second]) == 0)

        // The usage ledger: one speech line per line spoken, the voice as the model and the
        // seconds of audio; the reuses record zeros.
        let ledger = try await cluster.postgres.query("""
            SELECT job_id, provider, model, characters, audio_seconds, reused FROM generation_usage
            WHERE capability = 'speech' ORDER BY job_id = $1 DESC, model
            """, [first])
        #expect(ledger.count == 6)
        let spoken = ledger.filter { $0.uuid("job_id") == first }
        #expect(spoken.map { $0.string("model") ?? "" } == ["en-gb", "en-us", "en-us+Alicia"])
        #expect(spoken.allSatisfy { $0.string("provider") == "espeak-ng" && $0.bool("reused") == false })
        let seconds = spoken.compactMap { $0.double("audio_seconds") }.reduce(0, +)
        #expect(abs(seconds - result.items.map(\.durationSeconds).reduce(0, +)) < 0.001)
        #expect(spoken.compactMap { $0.int("characters") }.reduce(0, +) == Self.lines.map(\.text.count).reduce(0, +))
        let reusedLines = ledger.filter { $0.uuid("job_id") == second }
        #expect(reusedLines.count == 3 && reusedLines.allSatisfy { $0.bool("reused") == true && $0.double("audio_seconds") == 0 })

        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func badItemsKillTheJobBeforeAnythingIsWritten() async throws {
        let cluster = try await TestCluster.make()
        let root = try Self.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let worker = cluster.startWorker(registry: Self.registry(root: root))
        let good = SpeechJob.Item(text: "This line is fine.", voice: "en-us")

        let empty = try await cluster.client.enqueue(SpeechJob(items: [good, .init(text: "  \n\t ", voice: "en-us")]))
        let unknownVoice = try await cluster.client.enqueue(SpeechJob(items: [good, .init(text: "Hello.", voice: "xx-no-such-voice")]))
        let unknownProvider = try await cluster.client.enqueue(SpeechJob(items: [.init(text: "Hello.", voice: "en-us", provider: "nope")]))
        let badOwner = try await cluster.client.enqueue(SpeechJob(items: [.init(text: "Hello.", voice: "en-us", owner: .init(kind: .document, id: nil))]))

        let deadEmpty = try await cluster.client.awaitJob(empty, timeout: 60)
        #expect(deadEmpty.state == .dead)
        #expect(deadEmpty.attempts == 1)
        #expect(deadEmpty.lastError?.contains("item 1") == true)
        #expect(deadEmpty.lastError?.contains("text is empty") == true)

        let deadVoice = try await cluster.client.awaitJob(unknownVoice, timeout: 60)
        #expect(deadVoice.state == .dead)
        #expect(deadVoice.attempts == 1)
        #expect(deadVoice.lastError?.contains("unknown voice 'xx-no-such-voice'") == true)

        let deadProvider = try await cluster.client.awaitJob(unknownProvider, timeout: 60)
        #expect(deadProvider.state == .dead)
        #expect(deadProvider.lastError?.contains("unknown voice provider 'nope'") == true)

        let deadOwner = try await cluster.client.awaitJob(badOwner, timeout: 60)
        #expect(deadOwner.state == .dead)
        #expect(deadOwner.lastError?.contains("needs an id") == true)

        // The good first line of each bad batch was not synthesized either.
        #expect(Self.files(under: root).filter { $0.hasSuffix(".wav") || $0.contains(".tmp") }.isEmpty)
        #expect(try await cluster.count("SELECT count(*) AS n FROM generated_content") == 0)

        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func unconfiguredProviderIsAPermanentFailure() async throws {
        let cluster = try await TestCluster.make()
        let root = try Self.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        // No OpenAI key in this environment: the provider is registered but not configured.
        let registry = JobRegistry()
        SpeechJob.register(in: registry, environment: SpeechEnvironment(assetsRoot: root, variables: ["PATH": "/usr/bin:/bin"]))
        let worker = cluster.startWorker(registry: registry)
        let id = try await cluster.client.enqueue(SpeechJob(items: [.init(text: "Hello.", voice: "alloy", provider: "openai")]))
        let dead = try await cluster.client.awaitJob(id, timeout: 60)
        #expect(dead.state == .dead)
        #expect(dead.attempts == 1)
        #expect(dead.lastError?.contains("provider openai is not configured") == true)
        #expect(dead.lastError?.contains("OPENAI_API_KEY") == true)
        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func speechErrorsSteerRetries() {
        #expect((SpeechError.unauthorized(provider: "x", status: 401) as any RetryableError).isRetryable == false)
        #expect((SpeechError.unknownVoice("v", provider: "x") as any RetryableError).isRetryable == false)
        #expect((SpeechError.rateLimited(provider: "x", retryAfter: 2) as any RetryableError).isRetryable)
        #expect((SpeechError.timeout(provider: "x") as any RetryableError).isRetryable)
        // A full or read-only volume may be freed or remounted: retried with backoff, not dead at once.
        #expect((AssetError.diskFull(path: "a") as any RetryableError).isRetryable)
        #expect((AssetError.readOnly(path: "a") as any RetryableError).isRetryable)
        #expect((AssetError.pathEscapesRoot("../x") as any RetryableError).isRetryable == false)
    }

    @Test func voiceCacheIsReadThrough() async throws {
        let cluster = try await TestCluster.make()
        let provider = CountingProvider(EspeakProvider())
        let catalog = VoiceCatalog(postgres: cluster.postgres, lifetime: 3600)

        let first = try await catalog.voices(provider: provider, language: "en")
        #expect(!first.isEmpty)
        #expect(provider.calls == 1)
        #expect(try await cluster.count("SELECT count(*) AS n FROM voice_cache WHERE provider = 'espeak-ng' AND language = 'en' AND expires_at > now()") == 1)

        let second = try await catalog.voices(provider: provider, language: "en")
        #expect(second == first)
        #expect(provider.calls == 1, "a fresh row must not re-fetch")

        // Another language is its own row.
        _ = try await catalog.voices(provider: provider, language: nil)
        #expect(provider.calls == 2)
        #expect(try await cluster.count("SELECT count(*) AS n FROM voice_cache") == 2)

        // An expired row is fetched again and refreshed.
        _ = try await cluster.postgres.query("UPDATE voice_cache SET expires_at = now() - interval '1 second' WHERE language = 'en'")
        _ = try await catalog.voices(provider: provider, language: "en")
        #expect(provider.calls == 3)
        #expect(try await cluster.count("SELECT count(*) AS n FROM voice_cache WHERE language = 'en' AND expires_at > now()") == 1)

        try await catalog.invalidate(provider: "espeak-ng")
        #expect(try await cluster.count("SELECT count(*) AS n FROM voice_cache") == 0)

        try await catalog.recordProviders(.standard(environment: ["PATH": "/usr/bin:/bin"]))
        #expect(try await cluster.count("SELECT count(*) AS n FROM voice_providers") == 5, "espeak-ng, flite, ElevenLabs, OpenAI, Piper")
        #expect(try await cluster.count("SELECT count(*) AS n FROM voice_providers WHERE id = 'espeak-ng' AND configured AND enabled") == 1)
        #expect(try await cluster.count("SELECT count(*) AS n FROM voice_providers WHERE id = 'openai' AND NOT configured") == 1)
        await cluster.shutdown()
    }

    @Test func generatedContentConstraintsHold() async throws {
        let cluster = try await TestCluster.make()
        await #expect(throws: (any Error).self) {
            try await cluster.postgres.query("INSERT INTO generated_content (id, mime_type, inline_text) VALUES ($1, 'application/pdf', 'x')", [UUID()])
        }
        await #expect(throws: (any Error).self) {
            try await cluster.postgres.query("INSERT INTO generated_content (id, mime_type) VALUES ($1, 'text/plain')", [UUID()])
        }
        try await cluster.postgres.query("INSERT INTO generated_content (id, mime_type, inline_text) VALUES ($1, 'text/plain', 'hi')", [UUID()])
        try await cluster.postgres.query("INSERT INTO generated_content (id, mime_type, file_path) VALUES ($1, 'application/x-embedding', 'a.bin')", [UUID()])
        #expect(try await cluster.count("SELECT count(*) AS n FROM generated_content") == 2)
        await cluster.shutdown()
    }
}

/// Wraps a provider and counts `voices(language:)` calls.
final class CountingProvider: VoiceProvider, Sendable {
    let wrapped: any VoiceProvider
    private let counter = Mutex(0)
    init(_ wrapped: any VoiceProvider) { self.wrapped = wrapped }

    var calls: Int { counter.withLock { $0 } }
    var id: String { wrapped.id }
    var displayName: String { wrapped.displayName }
    var outputMimeType: String { wrapped.outputMimeType }
    var requiresAPIKey: Bool { wrapped.requiresAPIKey }
    var isConfigured: Bool { wrapped.isConfigured }
    var maxCharactersPerRequest: Int { wrapped.maxCharactersPerRequest }

    func voices(language: String?) async throws -> [Voice] {
        counter.withLock { $0 += 1 }
        return try await wrapped.voices(language: language)
    }

    func synthesize(text: String, voice: String, language: String?, options: SynthesisOptions) async throws -> SynthesizedAudio {
        try await wrapped.synthesize(text: text, voice: voice, language: language, options: options)
    }
}
