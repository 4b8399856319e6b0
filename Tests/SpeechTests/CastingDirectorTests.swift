import Foundation
import Screenplay
import Testing
@testable import Speech

/// Casting that fits the characters, across two offline engines, with synthetic voice lists
/// shaped like espeak-ng's (`lang+variant`) and flite's (`kal`, `kal16`, `slt`, `rms`, `awb`).
@Suite(.timeLimit(.minutes(2))) struct CastingDirectorTests {
    static let espeak = VoicePool(provider: "espeak-ng", voices: ["en-gb", "en-us"].map { Voice(id: $0, name: $0, languages: ["en"], gender: "male", provider: "espeak-ng") }
        + ["m1", "m3", "m4", "m6", "Andy", "f1", "f2", "f3", "f5", "Andrea", "grandma", "Demonic", "UniRobot", "croak", "Tweaky", "robosoft7"].map {
            Voice(id: "en-gb+\($0)", name: $0, languages: ["en"], provider: "espeak-ng")
        })
    static let flite = VoicePool(provider: "flite", voices: ["kal", "kal16", "slt", "rms", "awb"].map {
        Voice(id: $0, name: $0, languages: ["en"], provider: "flite")
    })
    static let novelty: Set<String> = ["en-gb+Demonic", "en-gb+UniRobot", "en-gb+croak", "en-gb+Tweaky", "en-gb+robosoft7"]

    /// A script whose people say who they are: an introduction, pronouns, cue words, ages.
    static let script = """
        INT. KITCHEN - NIGHT

        SANDRA (60s), his wife, pours tea. She smiles at EDWARD (60s), a tall man. He winks.

        SANDRA
        Tea?

        EDWARD
        Please.

        YOUNG EDWARD (10) runs in. He is out of breath.

        YOUNG EDWARD
        Dad!

        EDWARD AND SANDRA
        Hush.

        ALL
        Goodnight.

        MRS. HOLLOWAY
        Is he asleep?

        INT. PORCH - NIGHT

        OLD MAN
        Evening.

        LITTLE GIRL
        Evening, sir.

        ROBIN
        Who's there?
        """

    static func profiles(_ text: String) throws -> CharacterProfiles {
        CharacterProfiles(document: try ScreenplayReader.read(Array(text.utf8), fileName: "t.fountain"))
    }

    static func propose(_ text: String = script, pools: [VoicePool] = [espeak, flite],
                        overrides: CastOverrides = CastOverrides()) throws -> CastProposal {
        try CastingDirector.propose(profiles: profiles(text), pools: pools, language: "en", overrides: overrides)
    }

    @Test func voicesHaveTheGenderTheScriptSays() throws {
        let proposal = try Self.propose()
        #expect(proposal.choice("SANDRA")?.gender == .female)
        #expect(proposal.choice("SANDRA")?.voiceGender == .female)
        #expect(proposal.choice("EDWARD")?.gender == .male)
        #expect(proposal.choice("EDWARD")?.voiceGender == .male)
        #expect(proposal.choice("MRS. HOLLOWAY")?.voiceGender == .female)
        #expect(proposal.choice("OLD MAN")?.voiceGender == .male)
        #expect(proposal.choice("LITTLE GIRL")?.voiceGender == .female)
    }

    @Test func unknownStaysUnknown() throws {
        let robin = try #require(try Self.propose().choice("ROBIN"))
        #expect(robin.gender == nil)
        #expect(robin.genderConfidence == 0)
        #expect(robin.reason.contains("unknown"))
    }

    @Test func onePersonAtAnotherAgeKeepsTheVoiceWithAnAgeAdjustment() throws {
        let proposal = try Self.propose()
        let edward = try #require(proposal.choice("EDWARD"))
        let young = try #require(proposal.choice("YOUNG EDWARD"))
        #expect(young.identity == "EDWARD")
        #expect(young.tier == .sameIdentity)
        #expect((young.provider, young.voice) == (edward.provider, edward.voice))
        #expect(edward.options == nil)
        let options = try #require(young.options)
        #expect(options.speed > 1)
        #expect((options.pitch ?? 50) > 50)
        #expect(proposal.cast.role(for: .character("Young Edward")).options == options)
    }

    @Test func groupsSpeakWithTheFirstMemberAndChorusesWithTheNarrator() throws {
        let proposal = try Self.propose()
        let group = try #require(proposal.choice("EDWARD AND SANDRA"))
        #expect(group.tier == .group)
        #expect(group.voice == proposal.choice("EDWARD")?.voice)
        let all = try #require(proposal.choice("ALL"))
        #expect(all.tier == .chorus)
        #expect(CastRole(provider: all.provider, voice: all.voice) == proposal.cast.narratorRole)
    }

    @Test func noveltyVoicesAreNeverCastUnlessACastFileNamesThem() throws {
        let crowd = (1...30).map { "EXTRA \($0)\nLine \($0).\n" }.joined(separator: "\n")
        let proposal = try Self.propose("INT. HALL - DAY\n\n" + crowd)
        #expect(proposal.choices.count == 30)
        #expect(proposal.choices.allSatisfy { !Self.novelty.contains($0.voice) })
        let named = try Self.propose(overrides: CastOverrides(characters: ["Robin": "en-gb+Demonic"]))
        #expect(named.choice("ROBIN")?.voice == "en-gb+Demonic")
        #expect(named.choice("ROBIN")?.tier == .castFile)
    }

    @Test func leadsSpreadAcrossBothEnginesApartFromTheNarrator() throws {
        let proposal = try Self.propose()
        #expect(proposal.cast.narratorRole == CastRole(provider: "espeak-ng", voice: "en-gb"))
        let leads = proposal.choices.filter { $0.tier == .lead }
        #expect(leads.count >= 3)
        #expect(Set(leads.map(\.provider)) == ["espeak-ng", "flite"])
        #expect(leads.allSatisfy { CastRole(provider: $0.provider, voice: $0.voice) != proposal.cast.narratorRole })
        #expect(Set(leads.map { $0.provider + $0.voice }).count == leads.count, "leads get distinct voices")
    }

    @Test func aCastFileVoiceOfAnotherEngineWins() throws {
        let proposal = try Self.propose(overrides: CastOverrides(narrator: "flite:awb", characters: ["edward": "flite:slt", "Sandra": "en-gb+m3"]))
        #expect(proposal.cast.narratorRole == CastRole(provider: "flite", voice: "awb"))
        #expect(proposal.cast.provider == "flite")
        #expect(proposal.choice("EDWARD").map { [$0.provider, $0.voice] } == ["flite", "slt"])
        #expect(proposal.choice("YOUNG EDWARD")?.voice == "slt", "the person's other cues follow the cast file")
        #expect(proposal.choice("SANDRA").map { [$0.provider, $0.voice] } == ["espeak-ng", "en-gb+m3"])
        #expect(throws: SpeechError.unknownVoice("nobody", provider: "flite")) {
            try Self.propose(overrides: CastOverrides(characters: ["EDWARD": "flite:nobody"]))
        }
        #expect(throws: SpeechError.unknownVoice("flite:slt", provider: "espeak-ng")) {
            try Self.propose(pools: [Self.espeak], overrides: CastOverrides(characters: ["EDWARD": "flite:slt"]))
        }
    }

    @Test func scenePartnersDoNotShareAVoiceWhileThePoolAllows() throws {
        // Eight minor men, two to a scene: a pool of four voices is enough to keep every pair apart.
        var text = ""
        for scene in 0..<4 {
            text += "INT. ROOM \(scene) - DAY\n\n"
            for man in [2 * scene, 2 * scene + 1] {
                text += "MR. SMITH\(man)\nHello.\n\nMR. SMITH\(man)\nAgain.\n\n"
            }
        }
        let lead = "INT. HALL - DAY\n\n" + (1...3).map { "LEAD \($0)\nHi.\n\nLEAD \($0)\nAgain.\n\nLEAD \($0)\nBye.\n" }.joined(separator: "\n") + "\n"
        let proposal = try Self.propose(lead + text)
        for scene in 0..<4 {
            let a = proposal.choice("MR. SMITH\(2 * scene)"), b = proposal.choice("MR. SMITH\(2 * scene + 1)")
            #expect(a?.tier == .minor)
            #expect(a?.voiceGender == .male)
            #expect(a?.voice != b?.voice, "scene \(scene)")
        }
    }

    @Test func womenWhoMustShareFlitesOneFemaleVoiceArePitchedApart() throws {
        let text = """
            INT. STAGE - NIGHT

            MARGOT, sixties, taps her pencil. ISOLDE, forties, shakes her umbrella. She sits.

            MARGOT
            Again.

            ISOLDE
            From the top?

            MARGOT
            From the top.

            ISOLDE
            Fine.
            """
        let proposal = try Self.propose(text, pools: [Self.flite])
        let margot = try #require(proposal.choice("MARGOT")), isolde = try #require(proposal.choice("ISOLDE"))
        #expect(margot.voice == "slt" && isolde.voice == "slt", "flite has one female voice")
        #expect(margot.voiceGender == .female && isolde.voiceGender == .female)
        #expect(margot.options?.pitch != isolde.options?.pitch, "the second one is pitched apart")
        #expect([margot, isolde].contains { $0.reason.contains("pitched apart") })
    }

    @Test func anAgeAdjustmentAddsToAPitchApart() {
        let age = CastingDirector.ageOptions(shift: -1)!
        let combined = Casting.combined(SynthesisOptions(pitch: 60), age)
        #expect(combined.pitch == 60 + (age.pitch ?? 50) - 50)
        #expect(combined.speed == age.speed)
        #expect(Casting.combined(nil, age) == age)
    }

    @Test func theSameScriptCastsTheSameWay() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let a = try encoder.encode(Self.propose())
        let b = try encoder.encode(Self.propose())
        #expect(a == b)
        #expect(try Self.propose().castFile.characters["EDWARD"]?.contains(":") == true)
    }

    @Test func withOneEngineEveryVoiceComesFromIt() throws {
        let proposal = try Self.propose(pools: [Self.espeak])
        #expect(proposal.providers == ["espeak-ng"])
        #expect(proposal.choices.allSatisfy { $0.provider == "espeak-ng" })
        #expect(proposal.choice("SANDRA")?.voiceGender == .female)
    }

    @Test func voiceMetadataKnowsTheOfflineEngines() {
        #expect(VoiceMetadata.traits(provider: "espeak-ng", id: "en-gb+f2").gender == .female)
        #expect(VoiceMetadata.traits(provider: "espeak-ng", id: "en-us+m3").accent == "American")
        #expect(VoiceMetadata.traits(provider: "espeak-ng", id: "en-gb+Demonic").castable == false)
        #expect(VoiceMetadata.traits(provider: "espeak-ng", id: "en-gb+grandma").suits(.senior))
        #expect(VoiceMetadata.traits(provider: "flite", id: "slt").gender == .female)
        #expect(VoiceMetadata.traits(provider: "flite", id: "awb").accent == "Scottish")
        #expect(VoiceMetadata.traits(provider: "flite", id: "kal").family == VoiceMetadata.traits(provider: "flite", id: "kal16").family)
        let labelled = Voice(id: "abc", name: "Rachel", languages: ["en"], gender: "female", provider: "elevenlabs", age: "old", accent: "british")
        #expect(VoiceMetadata.traits(of: labelled).gender == .female)
        #expect(VoiceMetadata.traits(of: labelled).suits(.senior))
        #expect(VoiceMetadata.traits(provider: "openai", id: "alloy").gender == nil)
    }
}
