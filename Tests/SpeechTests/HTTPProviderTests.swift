import Foundation
import HTTPExchange
import RepartoTestSupport
import RepartoConfiguration
import Testing
@testable import Speech

/// The HTTP providers against a local fake server speaking the documented shapes.
@Suite(.timeLimit(.minutes(2))) struct HTTPProviderTests {
    static let key = "sk-test-SECRET-123"

    func openAI(_ server: FakeHTTPServer, timeout: TimeInterval = StandInTimeout.seconds) -> OpenAISpeechProvider {
        OpenAISpeechProvider(configuration: .init(baseURL: server.baseURL + "/v1", apiKey: Secret(Self.key), timeout: timeout))
    }

    func elevenLabs(_ server: FakeHTTPServer, timeout: TimeInterval = StandInTimeout.seconds) -> ElevenLabsProvider {
        ElevenLabsProvider(configuration: .init(baseURL: server.baseURL, apiKey: Secret(Self.key), timeout: timeout))
    }

    static func audioReply(_ data: Data, type: String = "audio/wav") -> FakeHTTPServer.Reply {
        .respond(status: 200, headers: [("Content-Type", type)], body: data)
    }

    @Test func openAISendsDocumentedRequestAndReturnsWAV() async throws {
        let wav = Signals.sine(seconds: 0.5, sampleRate: 24000).wavData()
        let server = try FakeHTTPServer { _ in Self.audioReply(wav) }
        defer { server.stop() }
        let audio = try await openAI(server).synthesize(text: "Hello", voice: "nova", language: "en", options: .init(speed: 1.5))
        #expect(try PCMAudio(wav: audio.data).duration == 0.5)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/audio/speech")
        #expect(request.headers["authorization"] == "Bearer \(Self.key)")
        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(json["model"] as? String == "gpt-4o-mini-tts")
        #expect(json["voice"] as? String == "nova")
        #expect(json["input"] as? String == "Hello")
        #expect(json["response_format"] as? String == "wav")
        #expect(json["speed"] as? Double == 1.5)
    }

    /// OpenAI streams WAV in chunked transfer with RIFF and data sizes of 0xFFFFFFFF; the other
    /// real-world shapes (espeak-ng's placeholder, LIST/fact chunks, odd padding) go through the
    /// same path. Whatever arrives, the provider returns a WAV with real sizes and the samples sent.
    @Test(arguments: RealWorldWAV.all.map(\.name))
    func openAIReadsRealWorldWAVSentInChunks(_ name: String) async throws {
        let fixture = try #require(RealWorldWAV.all.first { $0.name == name })
        let server = try FakeHTTPServer { _ in
            .chunked(status: 200, headers: [("Content-Type", "audio/wav")], body: fixture.data, chunkSize: 7)
        }
        defer { server.stop() }
        let audio = try await openAI(server).synthesize(text: "Hello", voice: "alloy", language: nil, options: .standard)
        #expect(audio.duration == 4.0 / Double(fixture.rate))
        let header = try WAVHeader(parsing: audio.data)
        #expect(!header.wasStreamingHeader)
        #expect(header.frameCount == 4)
        #expect(Int(audio.data.le32(at: 4)) == audio.data.count - 8, "the RIFF size is real")
        #expect(try PCMAudio(wav: audio.data).samples == RealWorldWAV.expected)
    }

    /// ElevenLabs streams raw PCM (`output_format=pcm_24000`) in chunked transfer; chunk
    /// boundaries fall inside samples (7-byte chunks of 2-byte samples) and must not matter.
    @Test func elevenLabsReadsPCMSentInChunks() async throws {
        let server = try FakeHTTPServer { _ in
            .chunked(status: 200, headers: [("Content-Type", "audio/pcm")], body: RealWorldWAV.pcm, chunkSize: 7)
        }
        defer { server.stop() }
        let audio = try await elevenLabs(server).synthesize(text: "Hello", voice: "abc123", language: nil, options: .standard)
        #expect(audio.duration == 4.0 / 24000)
        #expect(try PCMAudio(wav: audio.data).samples == RealWorldWAV.expected)
        #expect(Int(audio.data.le32(at: 4)) == audio.data.count - 8)
    }

    @Test func elevenLabsListsVoicesAndWrapsPCM() async throws {
        let pcm = Data(Signals.sine(seconds: 0.25, sampleRate: 24000).wavData().dropFirst(44))
        let listing = """
        {"voices":[{"voice_id":"abc123","name":"Rachel","labels":{"gender":"female","language":"en"}},
                   {"voice_id":"def456","name":"Hans","labels":{"gender":"male"},"verified_languages":[{"language":"de"}]}]}
        """
        let server = try FakeHTTPServer { request in
            if request.method == "GET", request.path == "/v1/voices" {
                return .respond(status: 200, headers: [("Content-Type", "application/json")], body: Data(listing.utf8))
            }
            if request.method == "POST", request.path == "/v1/text-to-speech/abc123", request.query == "output_format=pcm_24000" {
                return Self.audioReply(pcm, type: "audio/pcm")
            }
            return .respond(status: 404, headers: [], body: Data())
        }
        defer { server.stop() }
        let provider = elevenLabs(server)
        let voices = try await provider.voices(language: nil)
        #expect(voices.map(\.id) == ["abc123", "def456"])
        #expect(voices[0].gender == "female")
        #expect(try await provider.voices(language: "de").map(\.id) == ["def456"])

        let audio = try await provider.synthesize(text: "Hello", voice: "abc123", language: "en", options: .standard)
        let decoded = try PCMAudio(wav: audio.data)
        #expect(decoded.sampleRate == 24000)
        #expect(decoded.duration == 0.25)
        let post = try #require(server.requests.last)
        #expect(post.headers["xi-api-key"] == Self.key)
        let json = try #require(try JSONSerialization.jsonObject(with: post.body) as? [String: Any])
        #expect(json["text"] as? String == "Hello")
        #expect(json["model_id"] as? String == "eleven_multilingual_v2")

        await #expect(throws: SpeechError.unknownVoice("zzz999", provider: "elevenlabs")) {
            try await provider.synthesize(text: "Hello", voice: "zzz999", language: nil, options: .standard)
        }
        await #expect(throws: SpeechError.unknownVoice("../v1/voices", provider: "elevenlabs")) {
            try await provider.synthesize(text: "Hello", voice: "../v1/voices", language: nil, options: .standard)
        }
    }

    /// `GET /v1/voices` as ElevenLabs documents it: every voice carries many more fields than we
    /// read (samples, fine_tuning, settings, sharing null or nested), labels are free-form strings,
    /// and `verified_languages` lists language, model, accent and locale. Written for this test
    /// from the API reference's field list, with made-up ids.
    @Test func elevenLabsDocumentedVoiceListing() async throws {
        let listing = """
        {
          "voices": [
            {
              "voice_id": "vT0aaaaaaaaaaaaaaaa1", "name": "Alma", "samples": null, "category": "premade",
              "fine_tuning": {"is_allowed_to_fine_tune": true, "state": {}, "verification_failures": [],
                              "verification_attempts_count": 0, "manual_verification_requested": false},
              "labels": {"accent": "british", "description": "warm", "age": "middle-aged", "gender": "female",
                         "use_case": "narration"},
              "description": null, "preview_url": "https://example.invalid/alma.mp3", "available_for_tiers": [],
              "settings": null, "sharing": null, "high_quality_base_model_ids": ["eleven_multilingual_v2"],
              "verified_languages": [
                {"language": "en", "model_id": "eleven_multilingual_v2", "accent": "british", "locale": "en-GB",
                 "preview_url": null},
                {"language": "de", "model_id": "eleven_multilingual_v2", "accent": "standard", "locale": "de-DE",
                 "preview_url": null}
              ],
              "is_owner": false, "is_legacy": false, "is_mixed": false, "created_at_unix": null
            },
            {
              "voice_id": "vT0bbbbbbbbbbbbbbbb2", "name": "Bruno", "samples": null, "category": "cloned",
              "fine_tuning": null, "labels": {"gender": "male", "age": "old"}, "description": "gravel",
              "preview_url": null, "available_for_tiers": [], "settings": null, "sharing": null,
              "high_quality_base_model_ids": [],
              "verified_languages": [
                {"language": "it", "model_id": "eleven_multilingual_v2", "accent": "standard", "locale": "it-IT",
                 "preview_url": null}
              ]
            },
            {
              "voice_id": "vT0cccccccccccccccc3", "name": "Cato", "category": "generated", "labels": {},
              "verified_languages": []
            }
          ],
          "has_more": false, "total_count": 3, "next_page_token": null
        }
        """
        let server = try FakeHTTPServer { _ in
            .respond(status: 200, headers: [("Content-Type", "application/json")], body: Data(listing.utf8))
        }
        defer { server.stop() }
        let provider = elevenLabs(server)
        let all = try await provider.voices(language: nil)
        #expect(all.map(\.id) == ["vT0aaaaaaaaaaaaaaaa1", "vT0bbbbbbbbbbbbbbbb2", "vT0cccccccccccccccc3"])
        #expect(all.map(\.name) == ["Alma", "Bruno", "Cato"])
        #expect(all.map(\.gender) == ["female", "male", nil])
        #expect(all[0].languages == ["en", "de"])
        // Cato declares no language, so it is offered for every one.
        #expect(try await provider.voices(language: "de").map(\.id) == ["vT0aaaaaaaaaaaaaaaa1", "vT0cccccccccccccccc3"])
        #expect(try await provider.voices(language: "it-IT").map(\.id) == ["vT0bbbbbbbbbbbbbbbb2", "vT0cccccccccccccccc3"])
    }

    /// Error bodies in the shapes the two services document: OpenAI's
    /// `{"error": {"message", "type", "param", "code"}}`; ElevenLabs' `{"detail": {"status", "message"}}`
    /// and, for a request that fails validation (HTTP 422), `{"detail": [{"loc", "msg", "type"}]}`.
    @Test func documentedErrorBodiesAreTyped() async throws {
        let openAIBodies: [(Int, String, SpeechError)] = [
            (401, #"{"error": {"message": "Incorrect API key provided: sk-test-SECRET-123.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}"#,
             .unauthorized(provider: "openai", status: 401)),
            (400, #"{"error": {"message": "Input should be 'alloy', 'ash' or 'nova'", "type": "invalid_request_error", "param": "voice", "code": null}}"#,
             .rejected(provider: "openai", status: 400, message: "Input should be 'alloy', 'ash' or 'nova'")),
            (429, #"{"error": {"message": "Rate limit reached for requests", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}"#,
             .rateLimited(provider: "openai", retryAfter: 20)),
            (500, #"{"error": {"message": "The server had an error while processing your request.", "type": "server_error", "param": null, "code": null}}"#,
             .serverError(provider: "openai", status: 500)),
        ]
        for (status, body, expected) in openAIBodies {
            let server = try FakeHTTPServer { _ in
                .respond(status: status, headers: [("Content-Type", "application/json"), ("Retry-After", "20")], body: Data(body.utf8))
            }
            defer { server.stop() }
            await #expect(throws: expected) {
                try await openAI(server).synthesize(text: "Hi", voice: "alloy", language: nil, options: .standard)
            }
        }
        let elevenLabsBodies: [(Int, String, SpeechError)] = [
            (401, #"{"detail": {"status": "invalid_api_key", "message": "Invalid API key"}}"#,
             .unauthorized(provider: "elevenlabs", status: 401)),
            (400, #"{"detail": {"status": "max_character_limit_exceeded", "message": "Text is too long for this model."}}"#,
             .rejected(provider: "elevenlabs", status: 400, message: "Text is too long for this model.")),
            (422, #"{"detail": [{"loc": ["body", "text"], "msg": "Field required", "type": "missing"}]}"#,
             .rejected(provider: "elevenlabs", status: 422, message: "Field required")),
            (404, #"{"detail": {"status": "voice_not_found", "message": "A voice with that voice_id was not found."}}"#,
             .unknownVoice("abc123", provider: "elevenlabs")),
        ]
        for (status, body, expected) in elevenLabsBodies {
            let server = try FakeHTTPServer { _ in
                .respond(status: status, headers: [("Content-Type", "application/json")], body: Data(body.utf8))
            }
            defer { server.stop() }
            await #expect(throws: expected) {
                try await elevenLabs(server).synthesize(text: "Hi", voice: "abc123", language: nil, options: .standard)
            }
        }
    }

    @Test func rateLimitCarriesRetryAfter() async throws {
        let server = try FakeHTTPServer { _ in .respond(status: 429, headers: [("Retry-After", "7")], body: Data("{}".utf8)) }
        defer { server.stop() }
        do {
            _ = try await openAI(server).synthesize(text: "Hi", voice: "alloy", language: nil, options: .standard)
            Issue.record("expected an error")
        } catch let error as SpeechError {
            #expect(error == .rateLimited(provider: "openai", retryAfter: 7))
            #expect(error.isRetryable)
            #expect(error.retryAfter == 7)
        }
    }

    @Test func unauthorizedIsNotRetryableAndNeverShowsTheKey() async throws {
        let server = try FakeHTTPServer { _ in
            .respond(status: 401, headers: [("Content-Type", "application/json")],
                     body: Data(#"{"detail":{"message":"invalid key sk-test-SECRET-123"}}"#.utf8))
        }
        defer { server.stop() }
        do {
            _ = try await elevenLabs(server).synthesize(text: "Hi", voice: "abc", language: nil, options: .standard)
            Issue.record("expected an error")
        } catch let error as SpeechError {
            #expect(error == .unauthorized(provider: "elevenlabs", status: 401))
            #expect(!error.isRetryable)
            #expect(!String(describing: error).contains("SECRET"))
        }
    }

    @Test func otherClientErrorsCarryARedactedMessage() async throws {
        let server = try FakeHTTPServer { _ in
            .respond(status: 400, headers: [("Content-Type", "application/json")],
                     body: Data(#"{"error":{"message":"bad input for key sk-test-SECRET-123"}}"#.utf8))
        }
        defer { server.stop() }
        await #expect(throws: SpeechError.rejected(provider: "openai", status: 400, message: "bad input for key <redacted>")) {
            try await openAI(server).synthesize(text: "Hi", voice: "alloy", language: nil, options: .standard)
        }
    }

    @Test func serverErrorIsRetryable() async throws {
        let server = try FakeHTTPServer { _ in .respond(status: 503, headers: [], body: Data("oops".utf8)) }
        defer { server.stop() }
        do {
            _ = try await openAI(server).synthesize(text: "Hi", voice: "alloy", language: nil, options: .standard)
            Issue.record("expected an error")
        } catch let error as SpeechError {
            #expect(error == .serverError(provider: "openai", status: 503))
            #expect(error.isRetryable)
            #expect(error.retryAfter == nil)
        }
    }

    @Test func timeoutIsTypedAndRetryable() async throws {
        let server = try FakeHTTPServer { _ in .hang }
        defer { server.stop() }
        do {
            _ = try await openAI(server, timeout: 0.5).synthesize(text: "Hi", voice: "alloy", language: nil, options: .standard)
            Issue.record("expected an error")
        } catch let error as SpeechError {
            #expect(error == .timeout(provider: "openai"))
            #expect(error.isRetryable)
        }
    }

    @Test func truncatedBodyIsTyped() async throws {
        let wav = Signals.sine(seconds: 0.5).wavData()
        let server = try FakeHTTPServer { _ in
            .truncated(status: 200, headers: [("Content-Type", "audio/wav")], declaredLength: wav.count, body: wav.prefix(1000))
        }
        defer { server.stop() }
        do {
            _ = try await openAI(server).synthesize(text: "Hi", voice: "alloy", language: nil, options: .standard)
            Issue.record("expected an error")
        } catch let error as SpeechError {
            guard case .truncatedResponse(let provider, _, _) = error else { Issue.record("got \(error)"); return }
            #expect(provider == "openai")
            #expect(error.isRetryable)
        }
    }

    @Test func nonAudioResponsesAreRejected() async throws {
        let server = try FakeHTTPServer { request in
            if request.headers["authorization"] != nil {  // OpenAI: 200 with a JSON body / random bytes
                if (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any])?["voice"] as? String == "alloy" {
                    return .respond(status: 200, headers: [("Content-Type", "application/json")], body: Data(#"{"ok":true}"#.utf8))
                }
                return Self.audioReply(Data("this is not a wav file at all".utf8), type: "audio/wav")
            }
            return Self.audioReply(Data("<html><body>proxy error</body></html>".utf8), type: "application/octet-stream")
        }
        defer { server.stop() }
        // A JSON body with status 200 and text with an audio content type are both invalid audio
        // from openai, not retryable (the same request would get the same answer).
        for voice in ["alloy", "nova"] {
            do {
                _ = try await openAI(server).synthesize(text: "Hi", voice: voice, language: nil, options: .standard)
                Issue.record("expected an error for voice \(voice)")
            } catch let error as SpeechError {
                guard case .invalidAudio(let provider, _) = error else { Issue.record("got \(error)"); continue }
                #expect(provider == "openai")
                #expect(!error.isRetryable)
            }
        }
        do {
            _ = try await elevenLabs(server).synthesize(text: "Hi", voice: "abc", language: nil, options: .standard)
            Issue.record("expected an error")
        } catch let error as SpeechError {
            guard case .invalidAudio = error else { Issue.record("got \(error)"); return }
            #expect(!error.isRetryable)
        }
    }

    @Test func keysComeFromEnvironmentOrFileAndAreRedacted() throws {
        #expect(OpenAISpeechProvider.Configuration(environment: [:]).apiKey == nil)
        #expect(OpenAISpeechProvider.Configuration(environment: ["OPENAI_API_KEY": ""]).apiKey == nil)
        #expect(OpenAISpeechProvider.Configuration(environment: ["OPENAI_API_KEY": "k1"]).apiKey?.value == "k1")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString)")
        try "k2\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let key = try #require(ElevenLabsProvider.Configuration(environment: ["ELEVENLABS_API_KEY_FILE": file.path]).apiKey)
        #expect(key.value == "k2")
        #expect("\(key)" == "<redacted>")
        #expect(String(reflecting: key) == "<redacted>")

        let registry = VoiceProviderRegistry.standard(environment: ["PATH": "/usr/bin"])
        #expect(try registry.provider("openai").requiresAPIKey)
        #expect(throws: SpeechError.notConfigured(provider: "openai", hint: "set OPENAI_API_KEY or OPENAI_API_KEY_FILE")) {
            try registry.configuredProvider("openai")
        }
        #expect(throws: SpeechError.unknownProvider("nope")) { try registry.provider("nope") }
        #expect(try registry.provider().id == "espeak-ng")
    }

    @Test func unconfiguredProviderFailsBeforeAnyRequest() async {
        // OpenAI's own API needs a key (another base URL is a local server, configured without one).
        let provider = OpenAISpeechProvider(configuration: .init(baseURL: "https://api.openai.com/v1", apiKey: nil))
        await #expect(throws: SpeechError.notConfigured(provider: "openai", hint: provider.configurationHint)) {
            try await provider.synthesize(text: "Hi", voice: "alloy", language: nil, options: .standard)
        }
        await #expect(throws: SpeechError.unknownVoice("robot", provider: "openai")) {
            try await provider.synthesize(text: "Hi", voice: "robot", language: nil, options: .standard)
        }
    }

    @Test func retryAfterAcceptsHTTPDates() throws {
        let future = Date().addingTimeInterval(120)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let parsed = try #require(HTTPExchange.retryAfter(formatter.string(from: future)))
        #expect(parsed > 100 && parsed <= 120)
        #expect(HTTPExchange.retryAfter("soon") == nil)
    }

    @Test func refusedConnectionIsRetryable() async throws {
        let refusing = try RefusingPort()
        let provider = OpenAISpeechProvider(configuration: .init(baseURL: "http://127.0.0.1:\(refusing.port)",
                                                                 apiKey: Secret(Self.key), timeout: StandInTimeout.seconds))
        do {
            _ = try await provider.synthesize(text: "Hi", voice: "alloy", language: nil, options: .standard)
            Issue.record("expected an error")
        } catch let error as SpeechError {
            guard case .connectionFailed = error else { Issue.record("got \(error)"); return }
            #expect(error.isRetryable)
            #expect(!String(describing: error).contains("SECRET"))
        }
        withExtendedLifetime(refusing) {}
    }

    @Test func forbiddenMapsToUnauthorized() async throws {
        let server = try FakeHTTPServer { _ in .respond(status: 403, headers: [], body: Data()) }
        defer { server.stop() }
        await #expect(throws: SpeechError.unauthorized(provider: "elevenlabs", status: 403)) {
            try await elevenLabs(server).voices(language: nil)
        }
    }

    @Test func durationEstimateGrowsWithTextAndShrinksWithSpeed() {
        let provider = OpenAISpeechProvider(configuration: .init(apiKey: nil))
        let short = provider.estimateDuration(text: "One two three.", options: .standard)
        let long = provider.estimateDuration(text: String(repeating: "word ", count: 165), options: .standard)
        #expect(short > 0 && short < 3)
        #expect(abs(long - 60) < 0.5)  // 165 words at 165 wpm
        #expect(provider.estimateDuration(text: String(repeating: "word ", count: 165), options: .init(speed: 2)) < long)
    }
}
