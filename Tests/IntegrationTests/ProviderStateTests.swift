import ProviderControl
import SpeechJobs
import Assets
import Foundation
import RepartoRuntime
import TableRead
import Postgres
import Speech
import Testing

/// Provider state in PostgreSQL (`voice_providers`): workers record their providers, operators
/// disable and enable them (library and CLI), the `generate` job obeys; voices are validated
/// against the shared `voice_cache`. Real PostgreSQL, RabbitMQ and espeak-ng.
@Suite("voice provider state", .serialized, .timeLimit(.minutes(3)))
struct ProviderStateTests {
    static func registry(root: URL, postgres: PostgresClient, lifetime: Duration) -> (JobRegistry, SpeechGenerator) {
        let registry = JobRegistry()
        let generator = SpeechJob.register(in: registry, environment: SpeechEnvironment(assetsRoot: root, postgres: postgres),
                                             providerStateLifetime: lifetime)
        return (registry, generator)
    }

    static func wavFiles(under root: URL) -> [String] {
        GenerateJobTests.files(under: root).filter { $0.hasSuffix(".wav") || $0.contains(".tmp") }
    }

    @Test func aWorkerRecordsItsProviders() async throws {
        let cluster = try await TestCluster.make()
        let root = try GenerateJobTests.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let (registry, generator) = Self.registry(root: root, postgres: cluster.postgres, lifetime: .seconds(5))
        let worker = cluster.startWorker(registry: registry)
        try await generator.providersRecorded()

        let states = try await VoiceProviderDirectory(postgres: cluster.postgres).list()
        #expect(states.map(\.id) == ["elevenlabs", "espeak-ng", "flite", "openai", "piper"])
        let espeak = try #require(states.first { $0.id == "espeak-ng" })
        #expect(espeak.enabled && espeak.configured)
        #expect(espeak.displayName == EspeakProvider().displayName)
        #expect(states.allSatisfy { $0.enabled && $0.updatedAt != nil })

        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func aDisabledProviderKillsTheJobAndEnablingLetsTheRetrySucceed() async throws {
        let cluster = try await TestCluster.make()
        let root = try GenerateJobTests.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        // Lifetime zero: every batch reads the flags, so the test does not depend on when the memo expires.
        let (registry, generator) = Self.registry(root: root, postgres: cluster.postgres, lifetime: .zero)
        let worker = cluster.startWorker(registry: registry)
        try await generator.providersRecorded()
        let environment = try cluster.processEnvironment()

        let disabled = try await RepartoProcess.run(["voices", "providers", "disable", "espeak-ng"], environment: environment)
        #expect(disabled.status == 0, "\(disabled.stderr)")
        #expect(disabled.stdout.contains("espeak-ng: disabled"))
        #expect(try await cluster.count("SELECT count(*) AS n FROM voice_providers WHERE id = 'espeak-ng' AND NOT enabled") == 1)

        let items = [SpeechJob.Item(text: "The kettle screams.", voice: "en-us"),
                     SpeechJob.Item(text: "Nobody answers.", voice: "en-gb", provider: "espeak-ng")]
        let id = try await cluster.client.enqueue(SpeechJob(items: items))
        let dead = try await cluster.client.awaitJob(id, timeout: 60)
        #expect(dead.state == .dead)
        #expect(dead.attempts == 1)
        // The message a user reads, written out (not rebuilt from the error's own description).
        #expect(dead.lastError == "generate: item 0: voice provider 'espeak-ng' is disabled by an operator "
                + "(reparto voices providers enable espeak-ng)")
        #expect(Self.wavFiles(under: root).isEmpty)
        #expect(try await cluster.count("SELECT count(*) AS n FROM generated_content") == 0)

        let enabled = try await RepartoProcess.run(["voices", "providers", "enable", "espeak-ng"], environment: environment)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        #expect(try await cluster.client.retry(id) == 1)
        let done = try await cluster.client.awaitJob(id, timeout: 90)
        #expect(done.state == .succeeded, "\(done.lastError ?? "")")
        let result = try #require(try done.decodeResult(SpeechJob.Result.self))
        #expect(result.items.count == 2 && result.items.allSatisfy { !$0.reused })
        #expect(Self.wavFiles(under: root).count == 2)
        #expect(try await cluster.count("SELECT count(*) AS n FROM generated_content WHERE job_id = $1", [id]) == 2)

        try await worker.stop()
        await cluster.shutdown()
    }

    /// README: `reparto voices providers disable ID` makes `generate` refuse that provider's items
    /// within 5 s — with the worker's default memo lifetime, on a worker that had just used the
    /// provider. Checked on the database's own clock, not the test's: no generate job that started
    /// 5 s or more after the flag changed succeeded (plus 1 s: the memo's 5 s count from the end of
    /// the read of the flags, and a read that began just before the change can end a little after
    /// it on a loaded machine), and the refusal did come.
    @Test func aDisabledProviderIsRefusedWithinFiveSeconds() async throws {
        let cluster = try await TestCluster.make()
        let root = try GenerateJobTests.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let registry = JobRegistry()
        let generator = SpeechJob.register(in: registry, environment: SpeechEnvironment(assetsRoot: root, postgres: cluster.postgres))
        let worker = cluster.startWorker(registry: registry)
        try await generator.providersRecorded()
        func generate(_ n: Int) async throws -> JobRecord {
            let id = try await cluster.client.enqueue(SpeechJob(items: [SpeechJob.Item(text: "Line \(n).", voice: "en", provider: "espeak-ng")]))
            return try await cluster.client.awaitJob(id, timeout: 60)
        }
        #expect(try await generate(0).state == .succeeded, "the worker has the provider's flag in memory")

        let disabled = try await RepartoProcess.run(["voices", "providers", "disable", "espeak-ng"],
                                                    environment: try cluster.processEnvironment())
        #expect(disabled.status == 0, "\(disabled.stderr)")
        let disabledAt = try #require(try await cluster.postgres.query(
            "SELECT updated_at::text AS t FROM voice_providers WHERE id = 'espeak-ng' AND NOT enabled").first?.string("t"))
        var refused: JobRecord?
        for n in 1...600 where refused == nil {
            let record = try await generate(n)
            if record.state == .dead { refused = record }
        }
        let dead = try #require(refused, "the disabled provider was never refused")
        #expect(dead.lastError?.contains("disabled by an operator") == true, "\(dead.lastError ?? "")")
        #expect(try await cluster.count("""
            SELECT count(*) AS n FROM jobs
            WHERE kind = 'speech.synthesize' AND state = 'succeeded' AND started_at >= $1::timestamptz + interval '6 seconds'
            """, [disabledAt]) == 0, "a job started 5 s after the disable still used the provider")
        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func theGateRemembersTheFlagsForItsLifetime() async throws {
        let cluster = try await TestCluster.make()
        let directory = VoiceProviderDirectory(postgres: cluster.postgres)
        let registry = VoiceProviderRegistry.standard(environment: ["PATH": "/usr/bin:/bin"])
        let gate = VoiceProviderGate(directory: directory, registry: registry, lifetime: .seconds(3600))

        #expect(try await gate.isEnabled("espeak-ng"))  // records the providers, then reads the flags
        #expect(try await cluster.count("SELECT count(*) AS n FROM voice_providers") == 5, "espeak-ng, flite, ElevenLabs, OpenAI, Piper")
        try await directory.setEnabled(false, provider: "espeak-ng", registry: registry)
        #expect(try await gate.isEnabled("espeak-ng"), "within its lifetime the memo answers, not the table")
        await gate.forget()
        #expect(try await gate.isEnabled("espeak-ng") == false)
        #expect(try await gate.isEnabled("openai"))
        #expect(try await gate.isEnabled("never-recorded"), "no row: the column default (enabled)")

        // No database: nothing can be disabled.
        #expect(try await VoiceProviderGate(directory: nil, registry: registry).isEnabled("espeak-ng"))
        await cluster.shutdown()
    }

    @Test func voicesAreValidatedAgainstTheSharedCache() async throws {
        let cluster = try await TestCluster.make()
        let root = try GenerateJobTests.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        // A cached all-languages listing without en-us: the worker must believe the table, not ask espeak-ng.
        let catalog = VoiceCatalog(postgres: cluster.postgres, lifetime: 3600)
        try await catalog.store([Voice(id: "de", name: "German", languages: ["de"], gender: nil, provider: "espeak-ng")],
                                provider: "espeak-ng", language: nil)
        let (registry, _) = Self.registry(root: root, postgres: cluster.postgres, lifetime: .seconds(5))
        let worker = cluster.startWorker(registry: registry)

        let refused = try await cluster.client.enqueue(SpeechJob(items: [.init(text: "Hello.", voice: "en-us")]))
        let dead = try await cluster.client.awaitJob(refused, timeout: 60)
        #expect(dead.state == .dead)
        #expect(dead.lastError?.contains("unknown voice 'en-us'") == true)

        // A language the cache has no row for is fetched from espeak-ng and stored for every worker.
        let accepted = try await cluster.client.enqueue(SpeechJob(items: [.init(text: "Hello.", voice: "en-us", language: "en-us")]))
        let done = try await cluster.client.awaitJob(accepted, timeout: 60)
        #expect(done.state == .succeeded, "\(done.lastError ?? "")")
        #expect(try await cluster.count("""
            SELECT count(*) AS n FROM voice_cache WHERE provider = 'espeak-ng' AND language = 'en-us' AND expires_at > now()
            """) == 1)

        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func theCLIListsAndRefusesUnknownIDsInOneLine() async throws {
        let cluster = try await TestCluster.make()
        try await VoiceProviderDirectory(postgres: cluster.postgres).record(.standard(environment: ["PATH": "/usr/bin:/bin"]))
        let environment = try cluster.processEnvironment()

        for verb in ["enable", "disable"] {
            let output = try await RepartoProcess.run(["voices", "providers", verb, "klingon-tts"], environment: environment)
            #expect(output.status != 0)
            let lines = output.stderr.split(separator: "\n")
            #expect(lines.count == 1, "stderr: \(output.stderr)")
            #expect(lines.first == "Error: unknown voice provider 'klingon-tts' (known: elevenlabs, espeak-ng, flite, openai, piper)")
        }

        _ = try await RepartoProcess.run(["voices", "providers", "disable", "openai"], environment: environment)
        let list = try await RepartoProcess.run(["voices", "providers"], environment: environment)
        #expect(list.status == 0, "\(list.stderr)")
        let rows = list.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(rows.first == ["id", "enabled", "configured", "name"])
        #expect(rows.contains { $0.prefix(3) == ["espeak-ng", "enabled", "configured"] })
        #expect(rows.contains { $0.prefix(3) == ["openai", "disabled", "not configured"] })

        let json = try await RepartoProcess.run(["voices", "providers", "list", "--json"], environment: environment)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let states = try decoder.decode([VoiceProviderState].self, from: Data(json.stdout.utf8))
        #expect(states.map(\.id) == ["elevenlabs", "espeak-ng", "flite", "openai", "piper"])
        #expect(states.first { $0.id == "openai" }?.enabled == false)

        // `reparto voices` with a database fills the shared cache.
        let voices = try await RepartoProcess.run(["voices", "--language", "en"], environment: environment)
        #expect(voices.status == 0, "\(voices.stderr)")
        #expect(voices.stdout.contains("en-us"))
        #expect(try await cluster.count("SELECT count(*) AS n FROM voice_cache WHERE provider = 'espeak-ng' AND language = 'en'") == 1)
        await cluster.shutdown()
    }
}

/// Pure logic: no servers.
@Suite("expiring memo", .timeLimit(.minutes(2)))
struct ExpiringMemoTests {
    @Test func aValueIsFreshForItsLifetimeOnly() {
        let start = ContinuousClock.now
        var memo = ExpiringMemo<Int>(lifetime: .seconds(5))
        #expect(memo.value(at: start) == nil)
        memo.store(42, at: start)
        #expect(memo.value(at: start) == 42)
        #expect(memo.value(at: start + .milliseconds(4999)) == 42)
        #expect(memo.value(at: start + .seconds(5)) == nil)
        memo.store(7, at: start + .seconds(6))
        #expect(memo.value(at: start + .seconds(10)) == 7)
        memo.clear()
        #expect(memo.value(at: start + .seconds(10)) == nil)
    }

    @Test func zeroLifetimeNeverHits() {
        let now = ContinuousClock.now
        var memo = ExpiringMemo<String>(lifetime: .zero)
        memo.store("x", at: now)
        #expect(memo.value(at: now) == nil)
    }

    @Test func errorsReadWell() {
        #expect(SpeechError.providerDisabled("openai").description
                == "voice provider 'openai' is disabled by an operator (reparto voices providers enable openai)")
        #expect(!SpeechError.providerDisabled("openai").isRetryable)
        #expect(VoiceProviderDirectoryError.unknownProvider("x", known: ["a", "b"]).description == "unknown voice provider 'x' (known: a, b)")
        #expect(VoiceProviderDirectoryError.unknownProvider("x", known: []).description == "unknown voice provider 'x'")
    }
}
