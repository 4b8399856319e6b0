#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RepartoTestSupport
import Testing
@testable import Speech

/// Piper for real: the `piper-tts` venv and the joe voice that `scripts/services up` installs
/// (`.reparto/piper`). Listed in scripts/test's SERVER_TESTS, and failing, not skipping, when the
/// venv is missing.
@Suite(.timeLimit(.minutes(3))) struct PiperHelperServiceTests {
    static let line = "Isolde, the boat was due at nine. It is nearly ten, and the harbour is empty."

    /// The installed Python and the joe voice, or a failure saying to run scripts/services up.
    static func installation() throws -> (configuration: PiperConfiguration, joe: PiperVoiceModel) {
        var environment = ProcessInfo.processInfo.environment
        if environment[PiperConfiguration.voicesVariable] == nil, let voices = try? TestEnvironment.value(PiperConfiguration.voicesVariable) {
            environment[PiperConfiguration.voicesVariable] = voices
        }
        let configuration = PiperConfiguration(environment: environment)
        let python = try #require(configuration.python, "no Python with piper-tts: run scripts/services up (it installs .reparto/piper/venv)")
        try #require(FileManager.default.isExecutableFile(atPath: python.path), "\(python.path) is missing: run scripts/services up")
        let catalog = PiperVoiceCatalog.scan(configuration.voicePaths)
        let joe = try #require(catalog.models.first { $0.id == "en_US-joe-medium" },
                               "the joe voice is not in \(configuration.voicePaths): run scripts/services up (\(catalog.problems.map(\.error)))")
        return (configuration, joe)
    }

    static func request(_ model: PiperVoiceModel, _ text: String = line, lengthScale: Double = 1) -> PiperRequest {
        PiperRequest(modelPath: model.modelPath, configPath: model.configPath, text: text, lengthScale: lengthScale)
    }

    /// Waits until process `pid` (our child, reaped only by the pool) is a zombie or gone.
    static func waitUntilDead(_ pid: Int32) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            // procfs files have no size: read to the end. No file: reaped already.
            guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/stat") else { return }
            let stat = String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
            try? handle.close()
            if let close = stat.lastIndex(of: ")"),
               stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z") { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("helper \(pid) did not die within 10 s of SIGKILL")
    }

    @Test func aLineIsSpokenAndTheNextReusesTheHelperUntilItIsKilled() async throws {
        let (configuration, joe) = try Self.installation()
        let pool = PiperHelperPool(python: try #require(configuration.python), size: 1, threadsPerHelper: 1)

        let first = try await pool.synthesize(Self.request(joe))
        #expect(first.audio.sampleRate == joe.sampleRate && joe.sampleRate == 22050)
        let wav = try first.audio.wav(provider: "piper")
        let levels = try AudioLevels(wav: wav.data)
        #expect(levels.duration > 2)  // fifteen words
        #expect(levels.peakDBFS > -6)  // Piper normalizes each sentence to full scale

        let second = try await pool.synthesize(Self.request(joe, "And a second line."))
        #expect(second.helperPID == first.helperPID)
        #expect(!second.audio.pcm.isEmpty)

        kill(first.helperPID, SIGKILL)
        try await Self.waitUntilDead(first.helperPID)
        let third = try await pool.synthesize(Self.request(joe, "A third line, from a new helper."))
        #expect(third.helperPID != first.helperPID)
        #expect(!third.audio.pcm.isEmpty && third.audio.sampleRate == 22050)
    }

    /// A model Piper cannot load (one the file checks would have refused) is that file's error,
    /// from the helper itself; the helper lives on.
    @Test func theHelpersLoadErrorNamesTheFileAndTheHelperLivesOn() async throws {
        let (configuration, joe) = try Self.installation()
        let directory = try PiperVoiceDirectory()
        let fake = try directory.voice("en_US-fake-medium", config: try String(contentsOfFile: joe.configPath, encoding: .utf8))
        let pool = PiperHelperPool(python: try #require(configuration.python), size: 1, threadsPerHelper: 1)
        let before = try await pool.synthesize(Self.request(joe, "Hello."))

        let error = try await #require(throws: SpeechError.self) {
            _ = try await pool.synthesize(PiperRequest(modelPath: fake, configPath: fake + ".json", text: "Hello."))
        }
        guard case .invalidVoiceFile(let path, let reason) = error else { Issue.record("\(error)"); return }
        #expect(path == fake)
        #expect(reason.hasPrefix("Piper cannot load it: "), "\(reason)")
        #expect(!error.description.contains("\n"))

        let after = try await pool.synthesize(Self.request(joe, "Hello again."))
        #expect(after.helperPID == before.helperPID)
    }

    @Test func theProviderListsJoeAndSpeaksAtItsRateAndSpeed() async throws {
        let (configuration, joe) = try Self.installation()
        let pool = PiperHelperPool(python: try #require(configuration.python), size: 1, threadsPerHelper: 1)
        let provider = PiperProvider(configuration: PiperConfiguration(python: configuration.python, voicePaths: [joe.modelPath]), helpers: pool)
        #expect(provider.isConfigured)
        let voices = try await provider.voices(language: "en-us")
        #expect(voices == [Voice(id: "en_US-joe-medium", name: "Joe (en_US, medium)", languages: ["en-us", "en"], gender: "male",
                                 provider: "piper", accent: "American", quality: .natural)])

        let normal = try await provider.synthesize(text: Self.line, voice: "en_US-joe-medium", language: nil, options: .standard)
        #expect(normal.mimeType == "audio/wav")
        #expect(try WAVHeader(parsing: normal.data).format == WAVFormat.pcm16(sampleRate: 22050))
        let fast = try await provider.synthesize(text: Self.line, voice: "en_US-joe-medium", language: nil, options: .init(speed: 2))
        let normalLevels = try AudioLevels(wav: normal.data), fastLevels = try AudioLevels(wav: fast.data)
        #expect(fastLevels.duration < normalLevels.duration * 0.75)

        // Volume is a gain after synthesis (Piper has none of its own), as for flite.
        var registry = VoiceProviderRegistry(defaultProviderID: "piper")
        registry.register(provider)
        let quiet = try await SpeechSynthesizer(registry: registry)
            .synthesize(text: Self.line, voice: "en_US-joe-medium", options: .init(volume: 0.5))
        #expect(try AudioLevels(wav: quiet.data).peakDBFS < normalLevels.peakDBFS - 5)

        await #expect(throws: SpeechError.unknownVoice("en_US-nobody-medium", provider: "piper")) {
            _ = try await provider.synthesize(text: "Hello.", voice: "en_US-nobody-medium", language: nil, options: .standard)
        }
    }
}
