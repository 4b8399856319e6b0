import Foundation
import Screenplay
import Testing
@testable import Speech

@Suite(.timeLimit(.minutes(2))) struct CastingTests {
    static let voices = (0..<20).map { Voice(id: String(format: "v%02d", $0), name: "V\($0)", languages: ["en"], provider: "mock") }
    static let characters = ["ISOLDE", "TRISTAN", "MARKE", "BRANGÄNE", "MELOT"]

    @Test func namesAreNormalized() {
        #expect(CastingDirector.normalize("  Isolde   marie ") == "ISOLDE MARIE")
    }

    @Test func castingIsDeterministicAndOrderIndependent() throws {
        let a = try CastingDirector.cast(characters: Self.characters, voices: Self.voices, provider: "mock", language: "en")
        let b = try CastingDirector.cast(characters: Self.characters.reversed().map { $0.lowercased() }, voices: Self.voices,
                                         provider: "mock", language: "en")
        let again = try CastingDirector.cast(characters: Self.characters, voices: Self.voices, provider: "mock", language: "en")
        #expect(a == again)
        #expect(a.characters == b.characters, "order and case of the names do not matter")
        #expect(a.narrator == "v00")
        #expect(a.voice(for: .character("isolde")) == a.characters["ISOLDE"]?.voice)
        #expect(a.voice(for: .character("NOBODY")) == a.narrator)
        #expect(a.role(for: .character("NOBODY")) == CastRole(provider: "mock", voice: "v00"))
    }

    @Test func voicesAreDistinctWhileTheyLast() throws {
        let cast = try CastingDirector.cast(characters: Self.characters, voices: Self.voices, provider: "mock", language: "en")
        let used = cast.characters.values.map(\.voice) + [cast.narrator]
        #expect(Set(used).count == used.count)

        let many = (0..<50).map { "EXTRA \($0)" }
        let crowded = try CastingDirector.cast(characters: many, voices: Array(Self.voices.prefix(5)), provider: "mock", language: "en")
        #expect(crowded.characters.count == 50)
        // Four non-narrator voices for 50 characters: every one of them is used.
        #expect(Set(crowded.characters.values.map(\.voice)) == Set(["v01", "v02", "v03", "v04"]))
    }

    @Test func overridesFromYAMLJSONAndFlags() throws {
        let yaml = """
        provider: mock
        language: en
        narrator: v05
        characters:
          Isolde: v07
        """
        let fromYAML = try CastOverrides.parse(Data(yaml.utf8))
        let fromJSON = try CastOverrides.parse(Data(#"{"narrator": "v05", "characters": {"ISOLDE": "v07"}}"#.utf8))
        #expect(fromYAML.characters == ["Isolde": "v07"])
        #expect(fromJSON.narrator == "v05")

        let flags = CastOverrides(characters: ["isolde": "v09", "TRISTAN": "v10"])
        let merged = fromYAML.merging(flags)
        let cast = try CastingDirector.cast(characters: Self.characters, voices: Self.voices, provider: "mock", language: "en", overrides: merged)
        #expect(cast.narrator == "v05")
        #expect(cast.characters["ISOLDE"]?.voice == "v09")
        #expect(cast.characters["TRISTAN"]?.voice == "v10")
        #expect(!cast.characters.filter { !["ISOLDE", "TRISTAN"].contains($0.key) }.values.contains { ["v05", "v09", "v10"].contains($0.voice) })

        #expect(throws: SpeechError.unknownVoice("v99", provider: "mock")) {
            try CastingDirector.cast(characters: Self.characters, voices: Self.voices, provider: "mock", language: "en",
                                     overrides: CastOverrides(narrator: "v99"))
        }
        #expect(throws: SpeechError.self) { try CastOverrides.parse(Data("characters: [1, 2".utf8)) }
        #expect(throws: SpeechError.self) { try CastOverrides.parse(Data("characters:\n  A: v1\n  a: v2\n".utf8)) }
    }

    @Test func castRoundTripsAsJSON() throws {
        let cast = try CastingDirector.cast(characters: Self.characters, voices: Self.voices, provider: "mock", language: "en")
        #expect(try JSONDecoder().decode(Cast.self, from: JSONEncoder().encode(cast)) == cast)
    }

    /// Casts stored before roles named their provider (`{NAME: voice}`) still decode.
    @Test func castsStoredAsBareVoicesDecode() throws {
        let stored = #"{"provider": "espeak-ng", "language": "en", "narrator": "en-gb", "characters": {"ISOLDE": "en-us+f2"}}"#
        let cast = try JSONDecoder().decode(Cast.self, from: Data(stored.utf8))
        #expect(cast.role(for: .character("Isolde")) == CastRole(provider: "espeak-ng", voice: "en-us+f2"))
        #expect(cast.narratorRole == CastRole(provider: "espeak-ng", voice: "en-gb"))
        let mixed = #"{"provider": "espeak-ng", "narrator": "en-gb", "characters": {"A": "m3", "B": {"provider": "flite", "voice": "slt", "options": {"speed": 1.05, "pitch": 58}}}}"#
        let decoded = try JSONDecoder().decode(Cast.self, from: Data(mixed.utf8))
        #expect(decoded.language == CastingDirector.defaultLanguage)
        #expect(decoded.characters["A"] == CastRole(provider: "espeak-ng", voice: "m3"))
        #expect(decoded.characters["B"] == CastRole(provider: "flite", voice: "slt", options: SynthesisOptions(speed: 1.05, pitch: 58)))
        #expect(decoded.providers == ["espeak-ng", "flite"])
    }

    @Test func documentCastingWithEspeakUsesDocumentLanguage() async throws {
        let doc = ScreenplayDocument(format: .fountain, titlePage: [TitlePageEntry(key: "Language", values: ["de"])], elements: [
            Element(type: .character, text: "ANNA", name: "ANNA"), Element(type: .dialogue, text: "Hallo."),
            Element(type: .character, text: "BEN", name: "BEN"), Element(type: .dialogue, text: "Tschüss."),
        ])
        let registry = VoiceProviderRegistry.standard()
        let cast = try await CastingDirector.cast(document: doc, registry: registry)
        #expect(cast.provider == "espeak-ng")
        #expect(cast.language == "de")
        #expect(cast.narrator == "de")
        #expect(Set(cast.characters.keys) == ["ANNA", "BEN"])
        #expect(cast.characters["ANNA"] != cast.characters["BEN"])
        #expect(cast.characters.values.allSatisfy { $0.voice != cast.narrator })
        let again = try await CastingDirector.cast(document: doc, registry: registry)
        #expect(again == cast)
    }
}
