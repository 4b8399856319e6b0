import Foundation
import RepartoTestSupport
import RepartoConfiguration
import Testing
@testable import Speech

/// What the HTTP providers send for a delivery, and the gain their audio gets.
@Suite(.timeLimit(.minutes(2))) struct HTTPDeliveryTests {
    static let whispering = Delivery(parenthetical: "whispering", style: .whispering).options()

    func requestBody(_ server: FakeHTTPServer) throws -> [String: Any] {
        let request = try #require(server.requests.last)
        return try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
    }

    @Test func openAIGetsInstructionsOnlyForModelsThatTakeThem() async throws {
        let wav = Signals.sine(seconds: 0.5, sampleRate: 24000).wavData()
        let server = try FakeHTTPServer { _ in .respond(status: 200, headers: [("Content-Type", "audio/wav")], body: wav) }
        defer { server.stop() }
        func provider(model: String) -> OpenAISpeechProvider {
            OpenAISpeechProvider(configuration: .init(baseURL: server.baseURL, apiKey: Secret("sk-test"), model: model, timeout: StandInTimeout.seconds))
        }
        _ = try await provider(model: "gpt-4o-mini-tts").synthesize(text: "Hello", voice: "nova", language: nil, options: Self.whispering)
        let mini = try requestBody(server)
        #expect(mini["instructions"] as? String == DeliveryStyle.whispering.openAIInstructions)
        #expect(mini["speed"] as? Double == DeliveryStyle.whispering.prosody.rate)
        _ = try await provider(model: "tts-1").synthesize(text: "Hello", voice: "nova", language: nil, options: Self.whispering)
        #expect(try requestBody(server)["instructions"] == nil)
        _ = try await provider(model: "gpt-4o-mini-tts").synthesize(text: "Hello", voice: "nova", language: nil, options: .standard)
        #expect(try requestBody(server)["instructions"] == nil)
    }

    @Test func elevenLabsGetsVoiceSettingsForTheStyle() async throws {
        let pcm = Data(Signals.sine(seconds: 0.25, sampleRate: 24000).wavData().dropFirst(44))
        let server = try FakeHTTPServer { _ in .respond(status: 200, headers: [("Content-Type", "audio/pcm")], body: pcm) }
        defer { server.stop() }
        let provider = ElevenLabsProvider(configuration: .init(baseURL: server.baseURL, apiKey: Secret("xi-test"), timeout: StandInTimeout.seconds))
        let shouting = Delivery(parenthetical: "shouting", style: .shouting).options()
        _ = try await provider.synthesize(text: "Run!", voice: "abc123", language: nil, options: shouting)
        let settings = try #require(try requestBody(server)["voice_settings"] as? [String: Double])
        #expect(settings["stability"] == DeliveryStyle.shouting.elevenLabsSettings.stability)
        #expect(settings["style"] == DeliveryStyle.shouting.elevenLabsSettings.style)
        #expect(settings["speed"] == DeliveryStyle.shouting.prosody.rate)
        _ = try await provider.synthesize(text: "Run!", voice: "abc123", language: nil, options: .standard)
        #expect(try requestBody(server)["voice_settings"] == nil)
    }

    @Test func aWhisperFromAnHTTPProviderIsTurnedDownAfterwards() async throws {
        let wav = Signals.sine(seconds: 0.5, sampleRate: 24000).wavData()
        let server = try FakeHTTPServer { _ in .respond(status: 200, headers: [("Content-Type", "audio/wav")], body: wav) }
        defer { server.stop() }
        var registry = VoiceProviderRegistry(defaultProviderID: "openai")
        registry.register(OpenAISpeechProvider(configuration: .init(baseURL: server.baseURL, apiKey: Secret("sk-test"), timeout: StandInTimeout.seconds)))
        let synthesizer = SpeechSynthesizer(registry: registry)
        let plain = try PCMAudio(wav: await synthesizer.synthesize(text: "Hello", voice: "nova").data)
        let whispered = try PCMAudio(wav: await synthesizer.synthesize(text: "Hello", voice: "nova", options: Self.whispering).data)
        #expect(abs(whispered.rmsDBFS - (plain.rmsDBFS + 20 * log10(DeliveryStyle.whispering.prosody.volume))) < 0.1)
    }
}
