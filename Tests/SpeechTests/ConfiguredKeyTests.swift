import Foundation
import RepartoTestSupport
import RepartoConfiguration
import Testing
@testable import Speech

/// API keys reach the HTTP providers from wherever the configuration view found them: an env file
/// as much as the environment, by the one secret rule.
@Suite("speech providers' keys come from the merged configuration", .timeLimit(.minutes(1)))
struct ConfiguredKeyTests {
    private static let key = "sk-envfile-ONLY-7c6b5a"

    private func temporaryFile(_ text: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-key-test-\(UUID().uuidString)")
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test func openAIKeyOnlyInAnEnvFileIsSentAsBearer() async throws {
        let wav = Signals.sine(seconds: 0.25, sampleRate: 24000).wavData()
        let server = try FakeHTTPServer { _ in .respond(status: 200, headers: [("Content-Type", "audio/wav")], body: wav) }
        defer { server.stop() }
        let envFile = try temporaryFile("OPENAI_API_KEY=\(Self.key)\nOPENAI_BASE_URL=\(server.baseURL)\n")
        defer { try? FileManager.default.removeItem(at: envFile) }

        // The process environment has no key at all: only the env file does.
        let configuration = try ConfigurationValues.load(environment: ["PATH": "/usr/bin:/bin"], envFile: envFile.path)
        let registry = VoiceProviderRegistry.standard(environment: configuration.variables)
        let provider = try registry.configuredProvider("openai")
        _ = try await provider.synthesize(text: "Hello", voice: "nova", language: "en", options: .standard)
        let request = try #require(server.requests.first)
        #expect(request.headers["authorization"] == "Bearer \(Self.key)")
    }

    @Test func elevenLabsKeyFileNamedInAnEnvFileIsSent() async throws {
        let pcm = Data(Signals.sine(seconds: 0.25, sampleRate: 24000).wavData().dropFirst(44))
        let server = try FakeHTTPServer { _ in .respond(status: 200, headers: [("Content-Type", "audio/pcm")], body: pcm) }
        defer { server.stop() }
        let keyFile = try temporaryFile(Self.key + "\n")
        let envFile = try temporaryFile("ELEVENLABS_API_KEY_FILE=\(keyFile.path)\nELEVENLABS_BASE_URL=\(server.baseURL)\n")
        defer {
            try? FileManager.default.removeItem(at: keyFile)
            try? FileManager.default.removeItem(at: envFile)
        }
        let configuration = try ConfigurationValues.load(environment: [:], envFile: envFile.path)
        let provider = try VoiceProviderRegistry.standard(environment: configuration.variables).configuredProvider("elevenlabs")
        _ = try await provider.synthesize(text: "Hello", voice: "abc123", language: nil, options: .standard)
        #expect(server.requests.first?.headers["xi-api-key"] == Self.key)
    }

    @Test func aKeySetBothWaysLeavesTheProviderUnconfiguredAndSaysWhy() throws {
        let keyFile = try temporaryFile(Self.key)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let registry = VoiceProviderRegistry.standard(environment: ["OPENAI_API_KEY": Self.key, "OPENAI_API_KEY_FILE": keyFile.path])
        let hint = "both OPENAI_API_KEY and OPENAI_API_KEY_FILE are set: set only one"
        #expect(throws: SpeechError.notConfigured(provider: "openai", hint: hint)) { try registry.configuredProvider("openai") }
    }

    @Test func anUnreadableKeyFileLeavesTheProviderUnconfiguredAndNamesIt() throws {
        let missing = "/nonexistent/reparto-test/openai-key"
        let registry = VoiceProviderRegistry.standard(environment: ["ELEVENLABS_API_KEY_FILE": missing])
        do {
            _ = try registry.configuredProvider("elevenlabs")
            Issue.record("a missing key file was ignored")
        } catch {
            guard case .notConfigured(_, let hint) = error else { Issue.record("got \(error)"); return }
            #expect(hint.contains("ELEVENLABS_API_KEY_FILE") && hint.contains(missing), "\(hint)")
        }
    }
}
