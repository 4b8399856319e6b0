import Foundation
import Testing
@testable import Speech

/// The lexicon's phonemes and a delivery's volume, rate and pitch through the real espeak-ng,
/// with its library and with its command.
@Suite(.timeLimit(.minutes(2))) struct EspeakDeliveryTests {
    static let lexicon = try! PronunciationLexicon(entries: ["Isolde": .init(respelling: "ee-ZOL-duh", phonemes: "i:z'0ld@")])

    /// The command writes the same bytes for the same input every time; the library carries a
    /// little waveform state from line to line (docs/speech.md), so its byte-for-byte check runs
    /// on fresh helper processes (SpeakCommandTests.aLexiconsPhonemesReachTheLibraryThroughAHelper).
    @Test func aPhonemeEntryIsSpokenAsTheSamePhonemesTypedDirectly() async throws {
        let provider = EspeakProvider(environment: [:], engine: .process)
        let line = "Isolde, wait."
        let spoken = Self.lexicon.spokenText(line, alphabet: provider.phonemeAlphabet)
        #expect(spoken == "[[i:z'0ld@]], wait.")
        let withEntry = try await provider.synthesize(text: spoken, voice: "en-us", language: nil, options: .standard)
        let typed = try await provider.synthesize(text: "[[i:z'0ld@]], wait.", voice: "en-us", language: nil, options: .standard)
        let plain = try await provider.synthesize(text: line, voice: "en-us", language: nil, options: .standard)
        #expect(withEntry.data == typed.data)
        #expect(withEntry.data != plain.data)
    }

    @Test(arguments: EspeakProvider.Engine.allCases)
    func whisperingIsQuieterAndShoutingLouder(engine: EspeakProvider.Engine) async throws {
        let provider = EspeakProvider(environment: [:], engine: engine)
        let text = "I know what you did last night."
        func level(_ style: DeliveryStyle?) async throws -> Double {
            let options = style.map { Delivery(parenthetical: $0.rawValue, style: $0).options() } ?? .standard
            return try PCMAudio(wav: await provider.synthesize(text: text, voice: "en-us", language: nil, options: options).data).rmsDBFS
        }
        let normal = try await level(nil), whispering = try await level(.whispering), shouting = try await level(.shouting)
        // A third of the amplitude is about −9.5 dB; espeak-ng's own gain curve is not quite linear.
        #expect(whispering < normal - 6, "\(engine): whispering \(whispering) dBFS, normal \(normal) dBFS")
        #expect(shouting > normal + 2, "\(engine): shouting \(shouting) dBFS, normal \(normal) dBFS")
    }

    @Test func providersThatCannotSetVolumeGetAGainThatNeverClips() async throws {
        var registry = VoiceProviderRegistry(defaultProviderID: "tone")
        registry.register(ToneProvider(maxCharactersPerRequest: 200))
        let synthesizer = SpeechSynthesizer(registry: registry)
        func peak(_ volume: Double?) async throws -> Double {
            try PCMAudio(wav: await synthesizer.synthesize(text: "A short line.", voice: "mid", options: .init(volume: volume)).data).peakDBFS
        }
        let normal = try await peak(nil), half = try await peak(0.5), fourfold = try await peak(4)
        #expect(abs(half - (normal - 6.02)) < 0.1)
        // ×4 of a −6 dBFS tone would clip: it stops at full scale.
        #expect(fourfold <= 0 && fourfold > -0.1)
        let loud = Signals.sine(amplitude: 0.9).amplified(by: 3)
        #expect(loud.samples.allSatisfy { abs($0) <= 1 })
    }
}
