import Foundation
import Screenplay
import Testing
@testable import Speech

/// Which engines a document is cast from: both offline engines when both are configured and
/// nothing is named, only the named one otherwise.
@Suite(.timeLimit(.minutes(2))) struct CastingProvidersTests {
    struct Stub: VoiceProvider {
        var id: String
        var voiceIDs: [String]
        var configured = true
        var displayName: String { id }
        var outputMimeType: String { "audio/wav" }
        var requiresAPIKey: Bool { false }
        var isConfigured: Bool { configured }
        var maxCharactersPerRequest: Int { 1000 }
        func voices(language: String?) async throws -> [Voice] {
            voiceIDs.map { Voice(id: $0, name: $0, languages: ["en"], provider: id) }
        }
        func synthesize(text: String, voice: String, language: String?, options: SynthesisOptions) async throws -> SynthesizedAudio {
            throw SpeechError.emptyText
        }
    }

    static func registry(fliteConfigured: Bool = true) -> VoiceProviderRegistry {
        var registry = VoiceProviderRegistry()
        registry.register(Stub(id: "espeak-ng", voiceIDs: ["en-gb", "en-gb+m3", "en-gb+f2", "en-gb+f3", "en-gb+m4"]))
        registry.register(Stub(id: "elevenlabs", voiceIDs: ["x"], configured: true))
        registry.register(Stub(id: "flite", voiceIDs: ["kal", "kal16", "slt", "rms", "awb"], configured: fliteConfigured))
        return registry
    }

    static let document = ScreenplayDocument(format: .fountain, elements: [
        Element(type: .action, text: "ISOLDE, a woman, waits. TRISTAN, a man, arrives."),
        Element(type: .character, text: "ISOLDE", name: "ISOLDE"), Element(type: .dialogue, text: "Late."),
        Element(type: .character, text: "TRISTAN", name: "TRISTAN"), Element(type: .dialogue, text: "Sorry."),
        Element(type: .character, text: "MARKE", name: "MARKE"), Element(type: .dialogue, text: "Well."),
    ])

    @Test func bothOfflineEnginesWhenNothingIsNamed() async throws {
        let proposal = try await CastingDirector.propose(document: Self.document, registry: Self.registry())
        #expect(proposal.providers == ["espeak-ng", "flite"])
        #expect(Set(proposal.choices.map(\.provider)).isSubset(of: ["espeak-ng", "flite"]))
        #expect(proposal.choices.contains { $0.provider == "flite" })
        let alone = try await CastingDirector.propose(document: Self.document, registry: Self.registry(fliteConfigured: false))
        #expect(alone.providers == ["espeak-ng"])
    }

    @Test func aNamedProviderCastsAlone() async throws {
        let proposal = try await CastingDirector.propose(document: Self.document, registry: Self.registry(),
                                                         overrides: CastOverrides(provider: "espeak-ng"))
        #expect(proposal.providers == ["espeak-ng"])
        #expect(proposal.choices.allSatisfy { $0.provider == "espeak-ng" })
        // …except a voice the cast file names on another engine.
        let named = try await CastingDirector.propose(document: Self.document, registry: Self.registry(),
                                                      overrides: CastOverrides(provider: "espeak-ng", characters: ["ISOLDE": "flite:slt"]))
        #expect(named.choice("ISOLDE").map { [$0.provider, $0.voice] } == ["flite", "slt"])
        #expect(named.choices.filter { $0.name != "ISOLDE" }.allSatisfy { $0.provider == "espeak-ng" })
        #expect(named.providers == ["espeak-ng"])
    }

    @Test func anUnconfiguredEngineNamedInTheCastFileIsAnError() async throws {
        await #expect(throws: SpeechError.self) {
            try await CastingDirector.propose(document: Self.document, registry: Self.registry(fliteConfigured: false),
                                              overrides: CastOverrides(characters: ["ISOLDE": "flite:slt"]))
        }
    }
}
