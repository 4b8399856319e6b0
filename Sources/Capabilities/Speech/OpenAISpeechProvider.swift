import AsyncHTTPClient
import Foundation
import RepartoConfiguration

/// OpenAI (or any OpenAI-compatible server) text to speech: `POST /v1/audio/speech` with
/// `model`, `voice`, `input`, `response_format: "wav"` and a Bearer key.
public struct OpenAISpeechProvider: VoiceProvider, ConfigurationHinting {
    /// Settings, usually from the environment.
    public struct Configuration: Sendable {
        /// `OPENAI_BASE_URL`, default `https://api.openai.com` (without `/v1`).
        public var baseURL: String
        /// `OPENAI_API_KEY` or the file named by `OPENAI_API_KEY_FILE` (``ConfigurationValues/secret(_:)``).
        public var apiKey: Secret?
        /// Why the key could not be read (both forms set, an unreadable file): the provider is then
        /// not configured and says why instead of the usual hint.
        public var apiKeyProblem: ConfigurationError?
        /// `OPENAI_TTS_MODEL`, default `gpt-4o-mini-tts`.
        public var model: String
        /// `OPENAI_TTS_VOICES` (comma-separated) for compatible servers with other voices.
        public var voices: [String]
        /// Whole-request deadline in seconds (`OPENAI_TIMEOUT`, default 60).
        public var timeout: TimeInterval
        /// The HTTP client (default `HTTPClient.shared`).
        public var client: HTTPClient

        /// The variable holding the API key (or, with `_FILE`, naming the file that does).
        public static let apiKeyVariable = "OPENAI_API_KEY"

        /// OpenAI's built-in voices.
        public static let standardVoices = ["alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse"]

        public init(baseURL: String = "https://api.openai.com", apiKey: Secret?, model: String = "gpt-4o-mini-tts",
                    voices: [String] = Configuration.standardVoices, timeout: TimeInterval = 60, client: HTTPClient = .shared) {
            var base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            if base.hasSuffix("/v1") { base = String(base.dropLast(3)) }
            self.baseURL = base
            self.apiKey = apiKey
            self.model = model
            self.voices = voices
            self.timeout = timeout
            self.client = client
        }

        /// Reads the variables listed above, the key by the secret rule of ``ConfigurationValues``.
        public init(environment: [String: String]) {
            let values = ConfigurationValues(environment: environment)
            let (apiKey, problem) = values.secretOrProblem(Self.apiKeyVariable)
            let voices = values["OPENAI_TTS_VOICES"].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                .flatMap { $0.isEmpty ? nil : $0 }
            self.init(baseURL: values["OPENAI_BASE_URL"] ?? "https://api.openai.com", apiKey: apiKey,
                      model: values["OPENAI_TTS_MODEL"] ?? "gpt-4o-mini-tts",
                      voices: voices ?? Configuration.standardVoices,
                      timeout: values["OPENAI_TIMEOUT"].flatMap(Double.init) ?? 60)
            apiKeyProblem = problem
        }
    }

    public static let providerID = "openai"
    public var id: String { Self.providerID }
    public var displayName: String { "OpenAI-compatible speech" }
    public var outputMimeType: String { "audio/wav" }
    public var requiresAPIKey: Bool { true }
    public var isConfigured: Bool { configuration.apiKey != nil }
    public var maxCharactersPerRequest: Int { 4_096 }
    public var configurationHint: String { configuration.apiKeyProblem?.description ?? "set OPENAI_API_KEY or OPENAI_API_KEY_FILE" }
    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The configured voice list (the API has no listing endpoint); every voice speaks every language.
    public func voices(language: String?) async throws -> [Voice] {
        configuration.voices.map { Voice(id: $0, name: $0.capitalized, languages: [], gender: nil, provider: id) }
    }

    public func synthesize(text: String, voice: String, language: String?, options: SynthesisOptions) async throws -> SynthesizedAudio {
        let text = try SpeechText.validated(text, limit: maxCharactersPerRequest)
        guard configuration.voices.contains(voice) else { throw SpeechError.unknownVoice(voice, provider: id) }
        guard let key = configuration.apiKey else { throw SpeechError.notConfigured(provider: id, hint: configurationHint) }
        let model = options.model ?? configuration.model
        var payload: [String: Any] = ["model": model, "voice": voice, "input": text, "response_format": "wav"]
        if options.speed != 1.0 { payload["speed"] = max(0.25, options.boundedSpeed) }
        // Only the gpt-4o TTS models take instructions (tts-1 and tts-1-hd reject them).
        if let style = options.style, model.hasPrefix("gpt-4o") { payload["instructions"] = style.openAIInstructions }
        let body = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
        let transport = HTTPSpeechTransport(provider: id, client: configuration.client, timeout: configuration.timeout, maxResponseBytes: 256 << 20)
        let response = try await transport.send(
            method: "POST", url: configuration.baseURL + "/v1/audio/speech",
            headers: [("authorization", "Bearer \(key.value)"), ("content-type", "application/json"), ("accept", "audio/wav")],
            body: body, secret: key)
        try HTTPSpeechTransport.rejectNonAudio(response, provider: id)
        do {
            let (data, header) = try WAVWriter.normalized(response.body)
            return SynthesizedAudio(data: data, mimeType: outputMimeType, format: header.format, duration: header.duration)
        } catch {
            throw SpeechError.invalidAudio(provider: id, reason: error.description)
        }
    }
}
