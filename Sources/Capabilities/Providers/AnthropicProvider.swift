import AsyncHTTPClient
import Foundation
import RepartoConfiguration

/// Text and answers about images (image blocks and a forced tool whose input schema is the
/// answer's) from the Anthropic Messages API (`POST {ANTHROPIC_BASE_URL}/v1/messages`, headers
/// `x-api-key` and `anthropic-version`). Needs `ANTHROPIC_API_KEY` (or `ANTHROPIC_API_KEY_FILE`).
public struct AnthropicProvider: TextProvider, VisionProvider {
    /// Settings, usually from the environment (``init(values:)``).
    public struct Configuration: Sendable {
        public static let officialBaseURL = "https://api.anthropic.com"
        /// Without a trailing `/v1`.
        public var baseURL: String
        public var apiKey: Secret?
        public var apiKeyProblem: ConfigurationError?
        /// `ANTHROPIC_MODEL`, default `claude-sonnet-4-5`.
        public var model: String
        /// `ANTHROPIC_VISION_MODEL`, default the text model (``model``).
        public var visionModel: String
        /// `ANTHROPIC_TIMEOUT`: seconds for a whole request, default 120.
        public var timeout: TimeInterval
        public var client: HTTPClient

        public init(baseURL: String = Configuration.officialBaseURL, apiKey: Secret?, model: String = "claude-sonnet-4-5",
                    visionModel: String? = nil, timeout: TimeInterval = 120, client: HTTPClient = .shared) {
            self.baseURL = ProviderHTTPTransport.normalizedBase(baseURL)
            (self.apiKey, self.model, self.visionModel, self.timeout, self.client) = (apiKey, model, visionModel ?? model, timeout, client)
        }

        /// Reads `ANTHROPIC_BASE_URL`, `ANTHROPIC_MODEL`, `ANTHROPIC_VISION_MODEL`, `ANTHROPIC_TIMEOUT`
        /// and the key by the secret rule.
        public init(values: ConfigurationValues) {
            let (apiKey, problem) = values.secretOrProblem("ANTHROPIC_API_KEY")
            self.init(baseURL: values["ANTHROPIC_BASE_URL"] ?? Configuration.officialBaseURL, apiKey: apiKey,
                      model: values["ANTHROPIC_MODEL"] ?? "claude-sonnet-4-5", visionModel: values["ANTHROPIC_VISION_MODEL"],
                      timeout: values["ANTHROPIC_TIMEOUT"].flatMap(Double.init) ?? 120)
            apiKeyProblem = problem
        }
    }

    public static let providerID = "anthropic"
    public var id: String { Self.providerID }
    public var displayName: String { "Anthropic" }
    public var capabilities: Set<ProviderCapability> { [.text, .vision] }
    public var defaultModels: [ProviderCapability: String] { [.text: configuration.model, .vision: configuration.visionModel] }
    public var isConfigured: Bool { configuration.apiKey != nil && configuration.apiKeyProblem == nil }
    public var configurationHint: String {
        configuration.apiKeyProblem?.description ?? "set ANTHROPIC_API_KEY or ANTHROPIC_API_KEY_FILE"
    }
    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    public func generateText(_ request: TextGenerationRequest) async throws(ProviderError) -> GeneratedText {
        try request.validate()
        if let temperature = request.temperature, temperature > 1 {
            throw .invalidRequest(reason: "Anthropic takes a temperature between 0 and 1")
        }
        let model = request.model ?? configuration.model
        let body = try encode { try AnthropicWire.messagesBody(request, model: model) }
        var text = try AnthropicWire.decodeMessage(try await post(body), provider: id)
        if text.model.isEmpty { text.model = model }
        return text
    }

    /// One message with the images as `image` blocks and the schema as the tool the model must
    /// call (``AnthropicWire/visionBody(_:model:)``). Anthropic's limits (5 MB of base64 an
    /// image, 32 MB a request) are checked before anything is sent.
    public func describeImages(_ request: VisionRequest) async throws(ProviderError) -> VisionAnswer {
        try request.validate()
        try AnthropicWire.checkVisionLimits(request)
        let model = request.model ?? configuration.visionModel
        let body = try AnthropicWire.visionBody(request, model: model)
        var answer = try AnthropicWire.decodeVision(try await post(body), provider: id)
        if answer.model.isEmpty { answer.model = model }
        return answer
    }

    /// POSTs a body to `/v1/messages` with the key and version headers; returns the 2xx body.
    private func post(_ body: Data) async throws(ProviderError) -> Data {
        guard isConfigured, let key = configuration.apiKey else { throw .notConfigured(provider: id, hint: configurationHint) }
        let transport = ProviderHTTPTransport(provider: id, client: configuration.client, timeout: configuration.timeout)
        return try await transport.postJSON(
            url: configuration.baseURL + "/v1/messages",
            headers: [("x-api-key", key.value), ("anthropic-version", AnthropicWire.version)], body: body, secret: key).body
    }
}
