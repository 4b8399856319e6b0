import Foundation
import RepartoConfiguration
import RepartoTestSupport
import Screenplay
import Testing
@testable import Speech

/// Casting across engines by what a voice is: natural voices (Piper, a Kokoro server) for the
/// narrator and the leads, a voice of one's own while voices of one's gender are unused, the
/// cast file over everything, and the same cast every time.
@Suite(.timeLimit(.minutes(2))) struct NaturalCastingTests {
    static let espeak = CastingDirectorTests.espeak
    static let flite = CastingDirectorTests.flite
    /// Two natural men and two natural women, as a Piper provider lists them.
    static let piper = VoicePool(provider: "piper", voices: [
        ("en_US-joe-medium", "male"), ("en_US-amy-medium", "female"), ("en_GB-alan-medium", "male"), ("en_GB-jenny-medium", "female"),
    ].map { Voice(id: $0.0, name: $0.0, languages: ["en"], gender: $0.1, provider: "piper", quality: .natural) })

    /// The castable voices of `gender` in `pools` (by their traits), as `provider:voice`.
    static func castable(_ gender: Gender, in pools: [VoicePool]) -> [String] {
        pools.flatMap { pool in
            pool.voices.compactMap { voice -> String? in
                var labelled = voice
                labelled.provider = pool.provider
                let traits = VoiceMetadata.traits(of: labelled)
                return traits.castable && traits.gender == gender ? pool.provider + ":" + voice.id : nil
            }
        }
    }

    /// `count` men, each with `lines` lines, each alone in a scene of their own (or all in one).
    static func men(_ count: Int, lines: Int = 1, oneScene: Bool = false) -> String {
        (0..<count).map { i in
            (oneScene && i > 0 ? "" : "INT. ROOM \(oneScene ? 0 : i) - DAY\n\n") + "MR. SMITH\(i) nods. He waits.\n\n"
                + (0..<lines).map { _ in "MR. SMITH\(i)\nYes.\n" }.joined(separator: "\n")
        }.joined(separator: "\n") + "\n"
    }

    static func propose(_ text: String, pools: [VoicePool], overrides: CastOverrides = CastOverrides(),
                        castFrom: Int? = nil) throws -> CastProposal {
        try CastingDirector.propose(profiles: CastingDirectorTests.profiles(text), pools: pools, language: "en",
                                    overrides: overrides, castFrom: castFrom)
    }

    static func reference(_ choice: CastProposal.Choice?) -> String? {
        choice.map { $0.provider + ":" + $0.voice }
    }

    @Test func theNarratorAndTheLeadsGetNaturalVoices() throws {
        let text = """
            INT. KITCHEN - NIGHT

            SANDRA, his wife, pours tea. She smiles at EDWARD, a tall man. He winks.

            JENNY, a girl, laughs. She giggles.

            WILL, a boy, grins. He waves.

            SANDRA
            Tea?

            EDWARD
            Please.

            JENNY
            Me too.

            WILL
            And me.
            """
        let proposal = try Self.propose(text, pools: [Self.espeak, Self.flite, Self.piper])
        #expect(proposal.cast.narratorRole.reference == "piper:en_US-joe-medium", "the first natural voice narrates")
        for name in ["SANDRA", "EDWARD", "JENNY"] {
            let choice = try #require(proposal.choice(name))
            #expect(choice.tier == .lead, "\(name)")
            #expect(choice.provider == "piper", "\(name): \(choice.reason)")
            #expect(choice.voiceGender == choice.gender, "\(name)")
            #expect(choice.reason.contains("natural"), "\(name): \(choice.reason)")
        }
        // Piper's two men are the narrator's and Edward's: Will, a minor part, takes an unused synthetic man.
        let will = try #require(proposal.choice("WILL"))
        #expect(will.voiceGender == .male)
        #expect(will.provider != "piper" && will.tier == .minor)
        #expect(Set([proposal.cast.narratorRole.reference] + proposal.choices.map { $0.provider + ":" + $0.voice }).count == 5)
    }

    @Test func withoutNaturalVoicesTheFirstVoiceNarratesAsBefore() throws {
        let proposal = try Self.propose(Self.men(3), pools: [Self.espeak, Self.flite])
        #expect(proposal.cast.narratorRole.reference == "espeak-ng:en-gb")
        // A natural first voice narrates even when other pools have natural voices too.
        let kokoro = VoicePool(provider: "openai", voices: ["bm_george", "af_bella"].map { KokoroVoiceName.voice(id: $0, name: nil, provider: "openai") })
        let led = try Self.propose(Self.men(3), pools: [kokoro, Self.piper])
        #expect(led.cast.narratorRole.reference == "openai:bm_george")
        // A cast file's narrator wins over every preference.
        let named = try Self.propose(Self.men(3), pools: [Self.espeak, Self.piper], overrides: CastOverrides(narrator: "en-gb+f2"))
        #expect(named.cast.narratorRole.reference == "espeak-ng:en-gb+f2")
    }

    @Test func noTwoCharactersShareAVoiceWhileAnUnusedOneOfTheirGenderRemains() throws {
        let pools = [Self.espeak, Self.flite, Self.piper]
        let men = Self.castable(.male, in: pools).filter { $0 != "piper:en_US-joe-medium" }  // the narrator's
        // As many men as unused male voices, each in a scene of his own: the old rule shared four voices among them.
        let exact = try Self.propose(Self.men(men.count), pools: pools)
        let cast = (0..<men.count).compactMap { Self.reference(exact.choice("MR. SMITH\($0)")) }
        #expect(cast.count == men.count)
        #expect(Set(cast).count == men.count, "every man has a voice of his own")
        #expect(Set(cast) == Set(men))
        #expect(exact.choices.allSatisfy { $0.voiceGender == .male })

        // Two more men than voices: only they share, each with someone he never meets, and says so.
        let over = try Self.propose(Self.men(men.count + 2), pools: pools)
        let voices = (0..<(men.count + 2)).compactMap { Self.reference(over.choice("MR. SMITH\($0)")) }
        #expect(Set(voices).count == men.count)
        let sharing = over.choices.filter { $0.reason.contains("every male voice is taken") }
        #expect(sharing.count == 2)
        #expect(sharing.allSatisfy { $0.options?.pitch == nil }, "no scene partner has the voice: not pitched apart")
    }

    @Test func onceVoicesRunOutTheyAreSharedWithTheFewestScenePartners() throws {
        // Flite has four castable men, kal narrating; five men in one scene: two must share with a
        // scene partner and are pitched apart.
        let proposal = try Self.propose(Self.men(5, oneScene: true), pools: [Self.flite])
        #expect(proposal.cast.narratorRole.reference == "flite:kal")
        let choices = (0..<5).compactMap { proposal.choice("MR. SMITH\($0)") }
        #expect(choices.count == 5)
        #expect(Set(choices.map(\.voice)) == ["kal16", "rms", "awb"], "every male voice but the narrator's is used")
        let shared = choices.filter { $0.reason.contains("every male voice is taken") }
        #expect(shared.count == 2)
        #expect(shared.allSatisfy { $0.reason.contains("pitched apart") })
        #expect(Set(shared.map(\.voice)).count == 2, "least used first: the two share different voices")
    }

    @Test func theCastFileOverridesAcrossEngines() throws {
        let kokoro = VoicePool(provider: "openai", voices: SpeechServerStandIn.kokoroEnglish.map {
            KokoroVoiceName.voice(id: $0, name: nil, provider: "openai")
        })
        let text = Self.men(4, lines: 12)
        let overrides = CastOverrides(narrator: "openai:bf_emma", characters: [
            "MR. SMITH0": "flite:awb", "MR. SMITH1": "piper:en_US-joe-medium", "MR. SMITH2": "en-gb+Demonic",
        ])
        // Casting draws from espeak-ng and Piper; flite and the Kokoro server are there for the cast file only.
        let proposal = try Self.propose(text, pools: [Self.espeak, Self.piper, Self.flite, kokoro], overrides: overrides, castFrom: 2)
        #expect(proposal.cast.narratorRole.reference == "openai:bf_emma")
        #expect(Self.reference(proposal.choice("MR. SMITH0")) == "flite:awb")
        #expect(Self.reference(proposal.choice("MR. SMITH1")) == "piper:en_US-joe-medium")
        #expect(Self.reference(proposal.choice("MR. SMITH2")) == "espeak-ng:en-gb+Demonic", "a novelty voice when named")
        #expect((0..<3).allSatisfy { proposal.choice("MR. SMITH\($0)")?.tier == .castFile })
        // The one left takes Piper's other man: natural, unused, and not one the cast file gave.
        #expect(Self.reference(proposal.choice("MR. SMITH3")) == "piper:en_GB-alan-medium")
        #expect(proposal.providers == ["espeak-ng", "piper"])
        // A voice the pools do not have is refused, whichever engine it names.
        #expect(throws: SpeechError.unknownVoice("zf_nobody", provider: "openai")) {
            try Self.propose(text, pools: [Self.espeak, kokoro], overrides: CastOverrides(characters: ["MR. SMITH0": "openai:zf_nobody"]))
        }
    }

    @Test func theSameScriptAndPoolsCastTheSameWay() throws {
        let kokoro = VoicePool(provider: "openai", voices: SpeechServerStandIn.kokoroEnglish.map {
            KokoroVoiceName.voice(id: $0, name: nil, provider: "openai")
        })
        let text = CastingDirectorTests.script + Self.men(15, lines: 2)
        let pools = [Self.espeak, Self.flite, Self.piper, kokoro]
        let first = try Self.propose(text, pools: pools)
        for _ in 0..<5 { #expect(try Self.propose(text, pools: pools) == first) }
        #expect(first.choices.allSatisfy { $0.gender == nil || $0.voiceGender == $0.gender })
        // More unused voices of each gender than people: everyone has a voice of their own.
        let people = first.choices.filter { $0.kind == .person && $0.tier != .sameIdentity }
        #expect(Set(people.map { $0.provider + ":" + $0.voice }).count == people.count)
    }

    // MARK: engines that join

    struct Offline: VoiceProvider {
        var id = "espeak-ng"
        var displayName: String { id }
        var outputMimeType: String { "audio/wav" }
        var requiresAPIKey: Bool { false }
        var isConfigured: Bool { true }
        var maxCharactersPerRequest: Int { 1000 }
        func voices(language: String?) async throws -> [Voice] {
            ["en-gb", "en-gb+m3", "en-gb+f2", "en-gb+f3", "en-gb+m4"].map { Voice(id: $0, name: $0, languages: ["en"], provider: id) }
        }
        func synthesize(text: String, voice: String, language: String?, options: SynthesisOptions) async throws -> SynthesizedAudio {
            throw SpeechError.emptyText
        }
    }

    static func registry(_ server: OpenAISpeechProvider) -> VoiceProviderRegistry {
        var registry = VoiceProviderRegistry()
        registry.register(Offline())
        registry.register(server)
        return registry
    }

    static let document = ScreenplayDocument(format: .fountain, elements: [
        Element(type: .action, text: "ISOLDE, a woman, waits. TRISTAN, a man, arrives."),
        Element(type: .character, text: "ISOLDE", name: "ISOLDE"), Element(type: .dialogue, text: "Late."),
        Element(type: .character, text: "TRISTAN", name: "TRISTAN"), Element(type: .dialogue, text: "Sorry."),
    ])

    @Test func aLocalSpeechServerJoinsTheOfflineEngines() async throws {
        let server = try SpeechServerStandIn(voices: ["af_heart", "am_adam", "bf_emma", "ff_siwis"], listing: .objects)
        defer { server.stop() }
        let provider = OpenAISpeechProvider(configuration: .init(baseURL: server.baseURL, apiKey: nil, timeout: StandInTimeout.seconds))
        let proposal = try await CastingDirector.propose(document: Self.document, registry: Self.registry(provider))
        #expect(proposal.providers == ["espeak-ng", "openai"])
        #expect(proposal.leftOut == nil)
        #expect(proposal.cast.narratorRole.reference == "openai:af_heart")
        #expect(Self.reference(proposal.choice("TRISTAN")) == "openai:am_adam")
        #expect(Self.reference(proposal.choice("ISOLDE")) == "openai:bf_emma", "ff_siwis speaks French, not the script's English")
    }

    @Test func aServerThatNamesNoVoicesOrCannotBeReachedIsLeftOut() async throws {
        let silent = try SpeechServerStandIn(listing: .absent)
        defer { silent.stop() }
        let textOnly = OpenAISpeechProvider(configuration: .init(baseURL: silent.baseURL, apiKey: nil, timeout: StandInTimeout.seconds))
        let alone = try await CastingDirector.propose(document: Self.document, registry: Self.registry(textOnly))
        #expect(alone.providers == ["espeak-ng"])
        #expect(alone.leftOut == ["openai: lists no voices (GET /v1/audio/voices) and OPENAI_TTS_VOICES is not set"])
        // The same server with OPENAI_TTS_VOICES joins with them.
        let named = OpenAISpeechProvider(configuration: .init(baseURL: silent.baseURL, apiKey: nil, voices: ["am_liam"], timeout: StandInTimeout.seconds))
        let joined = try await CastingDirector.propose(document: Self.document, registry: Self.registry(named))
        #expect(joined.providers == ["espeak-ng", "openai"])
        #expect(joined.cast.narratorRole.reference == "openai:am_liam", "its one natural voice narrates")
        #expect(joined.choice("TRISTAN")?.provider == "espeak-ng")

        let broken = try SpeechServerStandIn(listing: .failing(503))
        defer { broken.stop() }
        let down = OpenAISpeechProvider(configuration: .init(baseURL: broken.baseURL, apiKey: nil, timeout: StandInTimeout.seconds))
        let fallback = try await CastingDirector.propose(document: Self.document, registry: Self.registry(down))
        #expect(fallback.providers == ["espeak-ng"])
        #expect(fallback.leftOut == ["openai: provider openai failed (HTTP 503)"])

        // OpenAI's own API is paid per character: cast from only when named.
        let paid = OpenAISpeechProvider(configuration: .init(apiKey: Secret("sk-test")))
        #expect(try await CastingDirector.propose(document: Self.document, registry: Self.registry(paid)).providers == ["espeak-ng"])
        #expect(CastingDirector.offlineEngines.contains("piper"))
    }
}
