import Foundation
import Screenplay
import Testing
@testable import Speech
import Assets

/// A provider that returns a tone whose length is proportional to the text, and records calls.
struct ToneProvider: VoiceProvider {
    var id = "tone"
    var displayName = "Tone"
    var outputMimeType = "audio/wav"
    var requiresAPIKey = false
    var isConfigured = true
    var maxCharactersPerRequest = 20
    var sampleRate = 8000

    func voices(language: String?) async throws -> [Voice] {
        ["low", "mid", "high"].map { Voice(id: $0, name: $0, languages: [], provider: id) }
    }

    func synthesize(text: String, voice: String, language: String?, options: SynthesisOptions) async throws -> SynthesizedAudio {
        let text = try SpeechText.validated(text, limit: maxCharactersPerRequest)
        guard ["low", "mid", "high"].contains(voice) else { throw SpeechError.unknownVoice(voice, provider: id) }
        let audio = Signals.sine(seconds: Double(text.count) / 100, sampleRate: sampleRate)
        return SynthesizedAudio(data: audio.wavData(), mimeType: outputMimeType, duration: audio.duration)
    }
}

@Suite(.timeLimit(.minutes(2))) struct SpeechSynthesizerTests {
    func synthesizer(maximumLength: Int = 1000) -> SpeechSynthesizer {
        var registry = VoiceProviderRegistry(defaultProviderID: "tone")
        registry.register(ToneProvider())
        return SpeechSynthesizer(registry: registry, maximumLength: maximumLength, chunkPause: 0.5)
    }

    @Test func longTextIsChunkedAndJoined() async throws {
        let text = "One two three. Four five six. Seven eight nine ten."  // 3 chunks of ≤ 20 characters
        #expect(SpeechText.chunks(text, maxLength: 20) == ["One two three.", "Four five six.", "Seven eight nine", "ten."])
        let audio = try await synthesizer().synthesize(text: text)
        let pcm = try PCMAudio(wav: audio.data)
        let expected = Double(14 + 14 + 16 + 4) / 100 + 3 * 0.5
        #expect(abs(pcm.duration - expected) < 0.001)
    }

    @Test func badInputIsTyped() async {
        let s = synthesizer(maximumLength: 10)
        await #expect(throws: SpeechError.emptyText) { try await s.synthesize(text: "   ") }
        await #expect(throws: SpeechError.textTooLong(length: 11, limit: 10)) { try await s.synthesize(text: "hello world") }
        await #expect(throws: SpeechError.unknownProvider("nope")) { try await s.synthesize(text: "hi", provider: "nope") }
        await #expect(throws: SpeechError.unknownVoice("bass", provider: "tone")) { try await s.synthesize(text: "hi", voice: "bass") }
    }

    @Test func chunksNeverExceedTheLimit() {
        let text = String(repeating: "word ", count: 300) + String(repeating: "x", count: 70)
        let chunks = SpeechText.chunks(text, maxLength: 50)
        #expect(chunks.allSatisfy { $0.count <= 50 && !$0.isEmpty })
        #expect(chunks.joined(separator: " ").filter { !$0.isWhitespace } == text.filter { !$0.isWhitespace })
    }

    @Test func renderUsesTheCastVoices() async throws {
        let items = SpeakableRules().items(for: [
            Element(type: .sceneHeading, text: "INT. HALL - DAY", orderIndex: 1),
            Element(type: .character, text: "ANNA", orderIndex: 2, name: "ANNA"),
            Element(type: .dialogue, text: "Hi.", orderIndex: 3),
        ])
        let cast = Cast(provider: "tone", language: "en", narrator: "low", characters: ["ANNA": "high"])
        let audio = try await synthesizer().render(items, cast: cast, pause: 0.25)
        #expect(abs(try PCMAudio(wav: audio.data).duration - (Double("Interior. Hall. Day.".count + 3) / 100 + 0.25)) < 0.001)
        let badCast = Cast(provider: "tone", language: "en", narrator: "low", characters: ["ANNA": "nope"])
        await #expect(throws: SpeechError.unknownVoice("nope", provider: "tone")) { try await synthesizer().render(items, cast: badCast) }
    }

    @Test func aRolesOptionsLayerOverTheRequestsInsteadOfReplacingThem() {
        let request = SynthesisOptions(speed: 1.2, pitch: 40, model: "eleven_multilingual_v2", volume: 0.8)
        let role = SynthesisOptions(pitch: 62)
        let layered = role.layered(over: request)
        #expect(layered == SynthesisOptions(speed: 1.2, pitch: 62, model: "eleven_multilingual_v2", volume: 0.8))
        #expect(SynthesisOptions(speed: 0.9, model: "m2", style: .whispering).layered(over: request)
                == SynthesisOptions(speed: 0.9, pitch: 40, model: "m2", volume: 0.8, style: .whispering))
        #expect(SynthesisOptions.standard.layered(over: request) == request)
    }
}

@Suite(.timeLimit(.minutes(2))) struct SpeechContentKeyTests {
    @Test func keyChangesWithEveryInput() {
        let base = ContentKey.speech(provider: "espeak-ng", voice: "en", language: "en", options: .standard, text: "Hi.")
        #expect(base == ContentKey.speech(provider: "espeak-ng", voice: "en", language: "en", options: .standard, text: "Hi."))
        #expect(base.kind == "speech")
        let variants = [
            ContentKey.speech(provider: "openai", voice: "en", language: "en", options: .standard, text: "Hi."),
            ContentKey.speech(provider: "espeak-ng", voice: "en+Alicia", language: "en", options: .standard, text: "Hi."),
            ContentKey.speech(provider: "espeak-ng", voice: "en", language: nil, options: .standard, text: "Hi."),
            ContentKey.speech(provider: "espeak-ng", voice: "en", language: "en", options: .init(speed: 1.2), text: "Hi."),
            ContentKey.speech(provider: "espeak-ng", voice: "en", language: "en", options: .standard, text: "Hi!"),
        ]
        #expect(Set(variants.map(\.digest) + [base.digest]).count == 6)
    }
}
