import AsyncHTTPClient
import Foundation
import RepartoConfiguration

/// OpenAI or any OpenAI-compatible speech server (Kokoro-FastAPI and the like): `POST /v1/audio/speech`
/// with `model`, `voice`, `input`, `response_format: "wav"`, and a Bearer key when one is set.
///
/// The voices are the server's own: `GET /v1/audio/voices` where it answers (Kokoro-FastAPI's
/// listing, ``SpeechServerVoiceListing``); a 404 or 405 there means the server lists none, and the
/// voices are then `OPENAI_TTS_VOICES`, else OpenAI's documented ones. OpenAI's own API has no
/// listing and is not asked. Voices named the Kokoro way (`af_bella`) carry their gender, language
/// and accent (``KokoroVoiceName``).
///
/// OpenAI's own API needs a key; another base URL is configured without one (a local server needs
/// none), as for ``OpenAICompatibleProvider``'s text and images.
public struct OpenAISpeechProvider: VoiceProvider, ConfigurationHinting {
    /// Settings, usually from the environment.
    public struct Configuration: Sendable {
        /// The OpenAI API's own address.
        public static let officialBaseURL = "https://api.openai.com"
        /// `OPENAI_BASE_URL`, default ``officialBaseURL`` (without `/v1`).
        public var baseURL: String
        /// `OPENAI_API_KEY` or the file named by `OPENAI_API_KEY_FILE` (``ConfigurationValues/secret(_:)``).
        public var apiKey: Secret?
        /// Why the key could not be read (both forms set, an unreadable file): the provider is then
        /// not configured and says why instead of the usual hint.
        public var apiKeyProblem: ConfigurationError?
        /// `OPENAI_TTS_MODEL`, default `gpt-4o-mini-tts`.
        public var model: String
        /// `OPENAI_TTS_VOICES` (comma-separated): the voices of a server that does not list its own
        /// (and of OpenAI's API, instead of ``standardVoices``); nil when not set.
        public var voices: [String]?
        /// `OPENAI_TTS_CONCURRENCY`: how many requests the server takes at once, across the cluster.
        /// Workers create the limit `provider:openai` with this concurrency when no limit of that
        /// name exists (``VoiceProvider/defaultConcurrency``); nil: no default limit.
        public var concurrency: Int?
        /// A setting that cannot be read (`OPENAI_TTS_CONCURRENCY` not a whole number from 1 to
        /// ``concurrencyRange``'s top): the provider is not configured and says so.
        public var settingProblem: String?
        /// Whole-request deadline in seconds (`OPENAI_TIMEOUT`, default 60).
        public var timeout: TimeInterval
        /// The HTTP client (default `HTTPClient.shared`).
        public var client: HTTPClient

        /// The variable holding the API key (or, with `_FILE`, naming the file that does).
        public static let apiKeyVariable = "OPENAI_API_KEY"
        /// The variable giving the server's concurrency.
        public static let concurrencyVariable = "OPENAI_TTS_CONCURRENCY"
        /// The concurrencies `OPENAI_TTS_CONCURRENCY` may give.
        public static let concurrencyRange = 1...1000

        /// OpenAI's built-in voices.
        public static let standardVoices = ["alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse"]

        public init(baseURL: String = Configuration.officialBaseURL, apiKey: Secret?, model: String = "gpt-4o-mini-tts",
                    voices: [String]? = nil, concurrency: Int? = nil, timeout: TimeInterval = 60, client: HTTPClient = .shared) {
            var base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            if base.hasSuffix("/v1") { base = String(base.dropLast(3)) }
            self.baseURL = base
            self.apiKey = apiKey
            self.model = model
            self.voices = voices
            self.concurrency = concurrency
            self.timeout = timeout
            self.client = client
        }

        /// Reads the variables listed above, the key by the secret rule of ``ConfigurationValues``.
        public init(environment: [String: String]) {
            let values = ConfigurationValues(environment: environment)
            let (apiKey, problem) = values.secretOrProblem(Self.apiKeyVariable)
            let voices = values["OPENAI_TTS_VOICES"].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                .map { $0.filter { !$0.isEmpty } }.flatMap { $0.isEmpty ? nil : $0 }
            self.init(baseURL: values["OPENAI_BASE_URL"] ?? Configuration.officialBaseURL, apiKey: apiKey,
                      model: values["OPENAI_TTS_MODEL"] ?? "gpt-4o-mini-tts", voices: voices,
                      timeout: values["OPENAI_TIMEOUT"].flatMap(Double.init) ?? 60)
            apiKeyProblem = problem
            if let text = values[Self.concurrencyVariable], !text.trimmingCharacters(in: .whitespaces).isEmpty {
                if let value = Int(text.trimmingCharacters(in: .whitespaces)), Self.concurrencyRange.contains(value) {
                    concurrency = value
                } else {
                    settingProblem = "\(Self.concurrencyVariable) must be a whole number from 1 to \(Self.concurrencyRange.upperBound), not '\(text.prefix(40))'"
                }
            }
        }

        /// True when the base URL is OpenAI's own, which needs a key and lists no voices.
        public var isOfficial: Bool { baseURL == Self.officialBaseURL }
    }

    /// Where a voice list came from.
    public enum VoiceSource: String, Sendable, Hashable {
        /// The server's `GET /v1/audio/voices`.
        case server
        /// `OPENAI_TTS_VOICES`.
        case configured
        /// OpenAI's documented voices (``Configuration/standardVoices``).
        case documented
    }

    public static let providerID = "openai"
    public var id: String { Self.providerID }
    public var displayName: String { "OpenAI-compatible speech" }
    public var outputMimeType: String { "audio/wav" }
    public var requiresAPIKey: Bool { configuration.isOfficial }
    public var isConfigured: Bool {
        configuration.apiKeyProblem == nil && configuration.settingProblem == nil && (configuration.apiKey != nil || !configuration.isOfficial)
    }
    public var maxCharactersPerRequest: Int { 4_096 }
    public var configurationHint: String {
        configuration.apiKeyProblem?.description ?? configuration.settingProblem ?? "set OPENAI_API_KEY or OPENAI_API_KEY_FILE"
    }
    /// ``Configuration/concurrency``.
    public var defaultConcurrency: Int? { configuration.concurrency }
    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The voices for `language` (see the type's description for where they come from).
    /// - Throws: ``SpeechError`` when the server's listing fails other than by 404/405, or is not one.
    public func voices(language: String?) async throws -> [Voice] {
        try await voiceListing(language: language).voices
    }

    /// The voices for `language` and where the list came from.
    /// - Throws: ``SpeechError`` when the server's listing fails other than by 404/405, or is not one.
    public func voiceListing(language: String?) async throws -> (voices: [Voice], source: VoiceSource) {
        if let listed = try await serverVoices() {
            return (listed.filter { $0.speaks(language) }, .server)
        }
        let source: VoiceSource = configuration.voices == nil ? .documented : .configured
        let voices = (configuration.voices ?? Configuration.standardVoices).map { id in
            if source == .documented {
                return Voice(id: id, name: id.capitalized, languages: [], provider: self.id, quality: .natural)
            }
            return KokoroVoiceName.voice(id: id, name: nil, provider: self.id)
        }
        return (voices.filter { $0.speaks(language) }, source)
    }

    /// The server's own listing; nil for OpenAI's API and for a server that answers 404 or 405.
    func serverVoices() async throws -> [Voice]? {
        guard !configuration.isOfficial else { return nil }
        if let problem = configuration.apiKeyProblem { throw SpeechError.notConfigured(provider: id, hint: problem.description) }
        let key = configuration.apiKey
        var headers = [("accept", "application/json")]
        if let key { headers.append(("authorization", "Bearer \(key.value)")) }
        let transport = HTTPSpeechTransport(provider: id, client: configuration.client, timeout: configuration.timeout,
                                            maxResponseBytes: SpeechServerVoiceListing.maximumBytes, expecting: .voiceListing)
        let response: HTTPSpeechTransport.Response
        do {
            response = try await transport.send(method: "GET", url: configuration.baseURL + "/v1/audio/voices",
                                                headers: headers, body: nil, secret: key)
        } catch SpeechError.rejected(_, 404, _), SpeechError.rejected(_, 405, _) {
            return nil
        }
        return try SpeechServerVoiceListing.parse(response.body, provider: id).map {
            KokoroVoiceName.voice(id: $0.id, name: $0.name, provider: id)
        }
    }

    public func synthesize(text: String, voice: String, language: String?, options: SynthesisOptions) async throws -> SynthesizedAudio {
        let text = try SpeechText.validated(text, limit: maxCharactersPerRequest)
        // OpenAI's voices are known here; another server's are its own (listed, or refused with a 400).
        if configuration.isOfficial {
            guard (configuration.voices ?? Configuration.standardVoices).contains(voice) else { throw SpeechError.unknownVoice(voice, provider: id) }
        } else {
            guard SpeechServerVoiceListing.valid(voice) else { throw SpeechError.unknownVoice(voice, provider: id) }
        }
        guard isConfigured else { throw SpeechError.notConfigured(provider: id, hint: configurationHint) }
        let key = configuration.apiKey
        let model = options.model ?? configuration.model
        var payload: [String: Any] = ["model": model, "voice": voice, "input": text, "response_format": "wav"]
        if options.speed != 1.0 { payload["speed"] = max(0.25, options.boundedSpeed) }
        // Only the gpt-4o TTS models take instructions (tts-1 and tts-1-hd reject them).
        if let style = options.style, model.hasPrefix("gpt-4o") { payload["instructions"] = style.openAIInstructions }
        let body = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
        let transport = HTTPSpeechTransport(provider: id, client: configuration.client, timeout: configuration.timeout, maxResponseBytes: 256 << 20)
        var headers = [("content-type", "application/json"), ("accept", "audio/wav")]
        if let key { headers.insert(("authorization", "Bearer \(key.value)"), at: 0) }
        let response = try await transport.send(method: "POST", url: configuration.baseURL + "/v1/audio/speech",
                                                headers: headers, body: body, secret: key)
        try HTTPSpeechTransport.rejectNonAudio(response, provider: id)
        do {
            let (data, header) = try WAVWriter.normalized(response.body)
            return SynthesizedAudio(data: data, mimeType: outputMimeType, format: header.format, duration: header.duration)
        } catch {
            throw SpeechError.invalidAudio(provider: id, reason: error.description)
        }
    }
}
