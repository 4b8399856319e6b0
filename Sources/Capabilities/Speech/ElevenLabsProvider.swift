import AsyncHTTPClient
import Foundation
import RepartoConfiguration

/// ElevenLabs text to speech over HTTP: `GET /v1/voices` and `POST /v1/text-to-speech/{voice_id}`
/// with the `xi-api-key` header. Audio is requested as raw 16-bit PCM (`output_format=pcm_<rate>`)
/// and returned wrapped in a WAV header, so it can be concatenated with other providers' audio.
public struct ElevenLabsProvider: VoiceProvider, ConfigurationHinting {
    /// Settings, usually from the environment.
    public struct Configuration: Sendable {
        /// `ELEVENLABS_BASE_URL`, default `https://api.elevenlabs.io`.
        public var baseURL: String
        /// `ELEVENLABS_API_KEY` or the file named by `ELEVENLABS_API_KEY_FILE` (``ConfigurationValues/secret(_:)``).
        public var apiKey: Secret?
        /// Why the key could not be read (both forms set, an unreadable file): the provider is then
        /// not configured and says why instead of the usual hint.
        public var apiKeyProblem: ConfigurationError?
        /// `ELEVENLABS_MODEL`, default `eleven_multilingual_v2`.
        public var model: String
        /// PCM sample rate requested (`pcm_24000` by default).
        public var sampleRate: Int
        /// Whole-request deadline in seconds (`ELEVENLABS_TIMEOUT`, default 60).
        public var timeout: TimeInterval
        /// The HTTP client (default `HTTPClient.shared`).
        public var client: HTTPClient

        /// The variable holding the API key (or, with `_FILE`, naming the file that does).
        public static let apiKeyVariable = "ELEVENLABS_API_KEY"

        public init(baseURL: String = "https://api.elevenlabs.io", apiKey: Secret?, model: String = "eleven_multilingual_v2",
                    sampleRate: Int = 24_000, timeout: TimeInterval = 60, client: HTTPClient = .shared) {
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.apiKey = apiKey
            self.model = model
            self.sampleRate = sampleRate
            self.timeout = timeout
            self.client = client
        }

        /// Reads the variables listed above, the key by the secret rule of ``ConfigurationValues``.
        public init(environment: [String: String]) {
            let values = ConfigurationValues(environment: environment)
            let (apiKey, problem) = values.secretOrProblem(Self.apiKeyVariable)
            self.init(baseURL: values["ELEVENLABS_BASE_URL"] ?? "https://api.elevenlabs.io", apiKey: apiKey,
                      model: values["ELEVENLABS_MODEL"] ?? "eleven_multilingual_v2",
                      timeout: values["ELEVENLABS_TIMEOUT"].flatMap(Double.init) ?? 60)
            apiKeyProblem = problem
        }
    }

    public static let providerID = "elevenlabs"
    public var id: String { Self.providerID }
    public var displayName: String { "ElevenLabs" }
    public var outputMimeType: String { "audio/wav" }
    public var requiresAPIKey: Bool { true }
    public var isConfigured: Bool { configuration.apiKey != nil }
    public var maxCharactersPerRequest: Int { 5_000 }
    public var configurationHint: String { configuration.apiKeyProblem?.description ?? "set ELEVENLABS_API_KEY or ELEVENLABS_API_KEY_FILE" }
    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    private func transport() -> HTTPSpeechTransport {
        HTTPSpeechTransport(provider: id, client: configuration.client, timeout: configuration.timeout, maxResponseBytes: 256 << 20)
    }

    private func key() throws(SpeechError) -> Secret {
        guard let key = configuration.apiKey else { throw .notConfigured(provider: id, hint: configurationHint) }
        return key
    }

    public func voices(language: String?) async throws -> [Voice] {
        let key = try key()
        let response = try await transport().send(method: "GET", url: configuration.baseURL + "/v1/voices",
                                                  headers: [("xi-api-key", key.value), ("accept", "application/json")],
                                                  body: nil, secret: key)
        struct Listing: Decodable {
            struct Entry: Decodable {
                var voice_id: String
                var name: String?
                var labels: [String: String]?
                struct Verified: Decodable { var language: String? }
                var verified_languages: [Verified]?
            }
            var voices: [Entry]
        }
        guard let listing = try? JSONDecoder().decode(Listing.self, from: response.body) else {
            throw SpeechError.rejected(provider: id, status: response.status, message: "unexpected voice listing")
        }
        return listing.voices.map { entry in
            var languages = (entry.verified_languages ?? []).compactMap(\.language)
            if languages.isEmpty, let l = entry.labels?["language"] { languages = [l] }
            return Voice(id: entry.voice_id, name: entry.name ?? entry.voice_id, languages: languages,
                         gender: entry.labels?["gender"], provider: id, age: entry.labels?["age"],
                         accent: entry.labels?["accent"])
        }.filter { $0.speaks(language) }
    }

    public func synthesize(text: String, voice: String, language: String?, options: SynthesisOptions) async throws -> SynthesizedAudio {
        let text = try SpeechText.validated(text, limit: maxCharactersPerRequest)
        let key = try key()
        // The voice id goes into the URL path: only accept the id alphabet so nothing can be injected.
        guard !voice.isEmpty, voice.count <= 64, voice.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw SpeechError.unknownVoice(voice, provider: id)
        }
        var payload: [String: Any] = ["text": text, "model_id": options.model ?? configuration.model]
        if let language, !language.isEmpty { payload["language_code"] = String(language.prefix(2)) }
        var settings: [String: Double] = [:]
        // ElevenLabs accepts 0.7–1.2 and refuses the request otherwise.
        if options.speed != 1.0 { settings["speed"] = min(max(options.boundedSpeed, 0.7), 1.2) }
        if let style = options.style?.elevenLabsSettings {
            settings["stability"] = style.stability
            settings["style"] = style.style
        }
        if !settings.isEmpty { payload["voice_settings"] = settings }
        let body = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
        let url = "\(configuration.baseURL)/v1/text-to-speech/\(voice)?output_format=pcm_\(configuration.sampleRate)"
        let response: HTTPSpeechTransport.Response
        do {
            response = try await transport().send(method: "POST", url: url,
                                                  headers: [("xi-api-key", key.value), ("content-type", "application/json"), ("accept", "audio/*")],
                                                  body: body, secret: key)
        } catch SpeechError.rejected(_, 404, _) {
            throw SpeechError.unknownVoice(voice, provider: id)
        }
        try HTTPSpeechTransport.rejectNonAudio(response, provider: id)
        let format = WAVFormat.pcm16(sampleRate: configuration.sampleRate)
        let wav: Data
        if response.body.starts(with: Array("RIFF".utf8)) {
            wav = response.body
        } else {
            guard response.body.count >= 2, response.body.count % 2 == 0 else {
                throw SpeechError.invalidAudio(provider: id, reason: "odd number of bytes for 16-bit PCM")
            }
            wav = WAVWriter.wrap(rawPCM: response.body, format: format)
        }
        do {
            let (data, header) = try WAVWriter.normalized(wav)
            return SynthesizedAudio(data: data, mimeType: outputMimeType, format: header.format, duration: header.duration)
        } catch {
            throw SpeechError.invalidAudio(provider: id, reason: error.description)
        }
    }
}
