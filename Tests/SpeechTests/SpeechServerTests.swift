import Foundation
import RepartoConfiguration
import RepartoTestSupport
import Screenplay
import Testing
@testable import Speech

/// OpenAI-compatible speech servers (Kokoro-FastAPI's wire format, ``SpeechServerStandIn``): voices
/// listed from the server, Kokoro names read for gender and accent, the fallbacks when a server
/// lists none, and the settings.
@Suite(.timeLimit(.minutes(2))) struct SpeechServerTests {
    func provider(_ server: SpeechServerStandIn, key: String? = nil, voices: [String]? = nil) -> OpenAISpeechProvider {
        OpenAISpeechProvider(configuration: .init(baseURL: server.baseURL + "/v1", apiKey: key.map(Secret.init), voices: voices, timeout: StandInTimeout.seconds))
    }

    // MARK: Kokoro names

    @Test func kokoroNamesGiveGenderLanguageAndAccent() throws {
        let cases: [(String, Gender, String, String)] = [
            ("af_bella", .female, "en-us", "American"), ("am_adam", .male, "en-us", "American"),
            ("bf_emma", .female, "en-gb", "British"), ("bm_george", .male, "en-gb", "British"),
            ("ef_dora", .female, "es", "Spanish"), ("em_alex", .male, "es", "Spanish"), ("ff_siwis", .female, "fr-fr", "French"),
            ("hf_alpha", .female, "hi", "Hindi"), ("hm_omega", .male, "hi", "Hindi"), ("if_sara", .female, "it", "Italian"),
            ("im_nicola", .male, "it", "Italian"), ("jf_alpha", .female, "ja", "Japanese"), ("jm_kumo", .male, "ja", "Japanese"),
            ("pf_dora", .female, "pt-br", "Brazilian"), ("pm_alex", .male, "pt-br", "Brazilian"),
            ("zf_xiaobei", .female, "zh-cn", "Mandarin"), ("zm_yunxi", .male, "zh-cn", "Mandarin"), ("zf_001", .female, "zh-cn", "Mandarin"),
        ]
        for (id, gender, language, accent) in cases {
            let name = try #require(KokoroVoiceName(id), "\(id)")
            #expect(name.gender == gender, "\(id)")
            #expect(name.language == language, "\(id)")
            #expect(name.accent == accent, "\(id)")
        }
        #expect(KokoroVoiceName("af_bella")?.displayName == "Bella")
        for id in ["alloy", "af", "af_", "xf_bella", "ax_bella", "afbella", "af-bella", "af_bella+af_sky", "af_bé", "AF_bella",
                   "af_" + String(repeating: "a", count: 65), ""] {
            #expect(KokoroVoiceName(id) == nil, "\(id)")
        }
        let voice = KokoroVoiceName.voice(id: "bm_george", name: "bm_george", provider: "openai")
        #expect(voice == Voice(id: "bm_george", name: "George", languages: ["en-gb"], gender: "male", provider: "openai",
                               accent: "British", quality: .natural))
        #expect(KokoroVoiceName.voice(id: "narrator", name: nil, provider: "openai")
                == Voice(id: "narrator", name: "narrator", languages: [], provider: "openai"))
    }

    @Test func kokoroVoicesHaveTraitsFromTheirNamesAndAreNatural() {
        let bella = VoiceMetadata.traits(provider: "openai", id: "af_bella")
        #expect(bella.gender == .female && bella.accent == "American" && bella.natural && bella.castable)
        let george = VoiceMetadata.traits(of: KokoroVoiceName.voice(id: "bm_george", name: nil, provider: "openai"))
        #expect(george.gender == .male && george.accent == "British" && george.natural)
        #expect(VoiceMetadata.traits(provider: "openai", id: "alloy").natural)
        #expect(!VoiceMetadata.traits(provider: "espeak-ng", id: "en-us+f2").natural)
        #expect(!VoiceMetadata.traits(provider: "flite", id: "slt").natural)
        // Piper voices come with their labels and quality; the provider alone says natural too.
        let piper = Voice(id: "en_US-joe-medium", name: "Joe", languages: ["en-us"], gender: "male", provider: "piper",
                          accent: "American", quality: .natural)
        let joe = VoiceMetadata.traits(of: piper)
        #expect(joe.gender == .male && joe.accent == "American" && joe.natural && joe.family == "piper:en_US-joe-medium")
        #expect(VoiceMetadata.traits(provider: "piper", id: "x").natural)
        // A voice's own quality wins over its provider's.
        #expect(!VoiceMetadata.traits(of: Voice(id: "robot", name: "Robot", languages: [], provider: "piper", quality: .synthetic)).natural)
        #expect(!VoiceMetadata.traits(provider: "some-test-engine", id: "v").natural)
    }

    // MARK: listing

    @Test(arguments: [SpeechServerStandIn.Listing.ids, .objects])
    func voicesAreListedFromTheServer(_ listing: SpeechServerStandIn.Listing) async throws {
        let server = try SpeechServerStandIn(voices: ["af_bella", "am_adam", "bf_emma", "ff_siwis", "custom"], listing: listing)
        defer { server.stop() }
        let provider = provider(server, voices: ["ignored_when_listed"])
        let all = try await provider.voiceListing(language: nil)
        #expect(all.source == .server)
        #expect(all.voices.map(\.id) == ["af_bella", "am_adam", "bf_emma", "ff_siwis", "custom"])
        #expect(all.voices.map(\.gender) == ["female", "male", "female", "female", nil])
        #expect(all.voices[0].quality == .natural && all.voices[0].accent == "American" && all.voices[0].name == "Bella")
        // `custom` declares no language, so it is offered for every one.
        #expect(try await provider.voices(language: "en").map(\.id) == ["af_bella", "am_adam", "bf_emma", "custom"])
        #expect(try await provider.voices(language: "fr").map(\.id) == ["ff_siwis", "custom"])
        let get = try #require(server.requests.first)
        #expect(get.method == "GET" && get.path == "/v1/audio/voices")
        #expect(get.headers["authorization"] == nil, "a local server gets no key when none is set")
    }

    @Test func aServerWithoutAListingUsesTheConfiguredVoicesElseOpenAIs() async throws {
        let server = try SpeechServerStandIn(voices: ["af_heart", "am_liam"], listing: .absent)
        defer { server.stop() }
        let configured = try await provider(server, voices: ["af_heart", "am_liam"]).voiceListing(language: nil)
        #expect(configured.source == .configured)
        #expect(configured.voices.map(\.id) == ["af_heart", "am_liam"])
        #expect(configured.voices.map(\.gender) == ["female", "male"], "Kokoro names in OPENAI_TTS_VOICES are read too")
        let documented = try await provider(server).voiceListing(language: nil)
        #expect(documented.source == .documented)
        #expect(documented.voices.map(\.id) == OpenAISpeechProvider.Configuration.standardVoices)

        // 405 means the same as 404.
        let post = try SpeechServerStandIn(listing: .failing(405))
        defer { post.stop() }
        #expect(try await provider(post).voiceListing(language: nil).source == .documented)
    }

    @Test func openAIsOwnAPIIsNotAskedForAListing() async throws {
        let provider = OpenAISpeechProvider(configuration: .init(apiKey: nil))
        let listing = try await provider.voiceListing(language: "en")
        #expect(listing.source == .documented)
        #expect(listing.voices.allSatisfy { $0.quality == .natural })
        let configured = OpenAISpeechProvider(configuration: .init(apiKey: nil, voices: ["nova"]))
        #expect(try await configured.voiceListing(language: nil).voices.map(\.id) == ["nova"])
    }

    @Test func aListingThatIsNotOneIsATypedError() async throws {
        let bodies: [(String, String)] = [
            ("<html>hi</html>", "not JSON"),
            (#"["af_bella"]"#, "not a JSON object"),
            (#"{"data": []}"#, "no \"voices\" array"),
            (#"{"voices": "af_bella"}"#, "no \"voices\" array"),
            (#"{"voices": ["af_bella", 7]}"#, "voices[1] is neither"),
            (#"{"voices": [{"name": "x"}]}"#, "voices[0] is neither"),
            (#"{"voices": [{"id": 12}]}"#, "voices[0] is neither"),
            (#"{"voices": [{"id": "a", "name": 3}]}"#, "voices[0].name is not a string"),
            (#"{"voices": [""]}"#, "voices[0] has an empty"),
            (#"{"voices": ["a\u0007b"]}"#, "voices[0] has an empty, overlong or unprintable id"),
            ("{\"voices\": [\"\(String(repeating: "x", count: 201))\"]}", "voices[0] has an empty, overlong"),
        ]
        for (body, reason) in bodies {
            let server = try SpeechServerStandIn(listing: .raw(Data(body.utf8)))
            defer { server.stop() }
            do {
                _ = try await provider(server).voices(language: nil)
                Issue.record("accepted \(body)")
            } catch let error as SpeechError {
                guard case .rejected(let provider, 200, let message) = error else { Issue.record("\(error)"); continue }
                #expect(provider == "openai")
                #expect(message?.contains(reason) == true, "\(body): \(message ?? "")")
            }
        }
        let many = "{\"voices\": [" + (0...SpeechServerVoiceListing.maximumVoices).map { "\"v\($0)\"" }.joined(separator: ",") + "]}"
        #expect(throws: SpeechError.rejected(provider: "openai", status: 200, message: "unexpected voice listing: more than 10000 voices")) {
            try SpeechServerVoiceListing.parse(Data(many.utf8), provider: "openai")
        }
        // Repeats are dropped, order kept.
        #expect(try SpeechServerVoiceListing.parse(Data(#"{"voices": ["b", "a", "b"]}"#.utf8), provider: "openai").map(\.id) == ["b", "a"])
    }

    @Test func anOversizedListingIsRefusedBeforeItIsRead() async throws {
        let huge = Data(("{\"voices\": [\"" + String(repeating: "a", count: SpeechServerVoiceListing.maximumBytes) + "\"]}").utf8)
        let server = try SpeechServerStandIn(listing: .raw(huge))
        defer { server.stop() }
        await #expect(throws: SpeechError.rejected(provider: "openai", status: 200,
                                                   message: "voice listing larger than \(SpeechServerVoiceListing.maximumBytes) bytes")) {
            try await provider(server).voices(language: nil)
        }
    }

    @Test func otherListingFailuresAreTheirTypedErrors() async throws {
        let broken = try SpeechServerStandIn(listing: .failing(500))
        defer { broken.stop() }
        await #expect(throws: SpeechError.serverError(provider: "openai", status: 500)) { try await provider(broken).voices(language: nil) }
        let locked = try SpeechServerStandIn(apiKey: "sk-local")
        defer { locked.stop() }
        await #expect(throws: SpeechError.unauthorized(provider: "openai", status: 401)) { try await provider(locked).voices(language: nil) }
        #expect(try await provider(locked, key: "sk-local").voices(language: nil).count == SpeechServerStandIn.kokoroEnglish.count)
        #expect(locked.requests.last?.headers["authorization"] == "Bearer sk-local")
    }

    // MARK: speech

    @Test func aLocalServerSpeaksAnyVoiceItListsWithoutAKey() async throws {
        let server = try SpeechServerStandIn()
        defer { server.stop() }
        let provider = provider(server)
        #expect(provider.isConfigured && !provider.requiresAPIKey)
        let audio = try await provider.synthesize(text: "One two three four", voice: "bm_george", language: "en", options: .standard)
        #expect(audio.duration == 0.2)
        let body = try #require(server.speechRequests.first)
        #expect(body["voice"] as? String == "bm_george" && body["response_format"] as? String == "wav")
        #expect(server.requests.first?.headers["authorization"] == nil)
        // A voice the server does not have is its 400, with its message.
        await #expect(throws: SpeechError.rejected(provider: "openai", status: 400, message: "Voice 'zz_nobody' not found")) {
            try await provider.synthesize(text: "Hi", voice: "zz_nobody", language: nil, options: .standard)
        }
        // An id no server could have is refused before any request.
        let before = server.requests.count
        await #expect(throws: SpeechError.unknownVoice("a\nb", provider: "openai")) {
            try await provider.synthesize(text: "Hi", voice: "a\nb", language: nil, options: .standard)
        }
        #expect(server.requests.count == before)
    }

    @Test func aBusyServersRetryAfterIsKept() async throws {
        let server = try SpeechServerStandIn(rateLimited: 1, retryAfter: 9)
        defer { server.stop() }
        await #expect(throws: SpeechError.rateLimited(provider: "openai", retryAfter: 9)) {
            try await provider(server).synthesize(text: "Hi", voice: "af_bella", language: nil, options: .standard)
        }
        #expect(try await provider(server).synthesize(text: "Hi", voice: "af_bella", language: nil, options: .standard).duration == 0.05)
    }

    // MARK: settings

    @Test func settingsFromTheEnvironment() {
        let local = OpenAISpeechProvider(configuration: .init(environment: [
            "OPENAI_BASE_URL": "http://127.0.0.1:8880/v1", "OPENAI_TTS_VOICES": "af_bella, am_adam,,", "OPENAI_TTS_CONCURRENCY": "3",
        ]))
        #expect(local.isConfigured, "a local server needs no key")
        #expect(local.configuration.voices == ["af_bella", "am_adam"])
        #expect(local.configuration.concurrency == 3 && local.defaultConcurrency == 3)
        #expect(OpenAISpeechProvider(configuration: .init(environment: ["OPENAI_TTS_VOICES": " , "])).configuration.voices == nil)

        let official = OpenAISpeechProvider(configuration: .init(environment: [:]))
        #expect(!official.isConfigured && official.requiresAPIKey && official.defaultConcurrency == nil)
        #expect(OpenAISpeechProvider(configuration: .init(environment: ["OPENAI_API_KEY": "k"])).isConfigured)

        #expect(OpenAISpeechProvider(configuration: .init(environment: ["OPENAI_TTS_CONCURRENCY": " "])).configuration.concurrency == nil)
        for bad in ["0", "-1", "1001", "2.5", "three", "99999999999999999999", "3 requests"] {
            let provider = OpenAISpeechProvider(configuration: .init(environment: ["OPENAI_BASE_URL": "http://127.0.0.1:8880",
                                                                                   "OPENAI_TTS_CONCURRENCY": bad]))
            #expect(!provider.isConfigured, "\(bad)")
            #expect(provider.configurationHint.hasPrefix("OPENAI_TTS_CONCURRENCY must be a whole number from 1 to 1000"), "\(bad)")
        }
    }
}
