import AsyncHTTPClient
import Foundation
import RepartoConfiguration

/// Text from the Anthropic Messages API (`POST {ANTHROPIC_BASE_URL}/v1/messages`, headers
/// `x-api-key` and `anthropic-version`). Needs `ANTHROPIC_API_KEY` (or `ANTHROPIC_API_KEY_FILE`).
public struct AnthropicProvider: TextProvider {
    /// Settings, usually from the environment (``init(values:)``).
    public struct Configuration: Sendable {
        public static let officialBaseURL = "https://api.anthropic.com"
        /// Without a trailing `/v1`.
        public var baseURL: String
        public var apiKey: Secret?
        public var apiKeyProblem: ConfigurationError?
        /// `ANTHROPIC_MODEL`, default `claude-sonnet-4-5`.
        public var model: String
        /// `ANTHROPIC_TIMEOUT`: seconds for a whole request, default 120.
        public var timeout: TimeInterval
        public var client: HTTPClient

        public init(baseURL: String = Configuration.officialBaseURL, apiKey: Secret?, model: String = "claude-sonnet-4-5",
                    timeout: TimeInterval = 120, client: HTTPClient = .shared) {
            self.baseURL = ProviderHTTPTransport.normalizedBase(baseURL)
            (self.apiKey, self.model, self.timeout, self.client) = (apiKey, model, timeout, client)
        }

        /// Reads `ANTHROPIC_BASE_URL`, `ANTHROPIC_MODEL`, `ANTHROPIC_TIMEOUT` and the key by the secret rule.
        public init(values: ConfigurationValues) {
            let (apiKey, problem) = values.secretOrProblem("ANTHROPIC_API_KEY")
            self.init(baseURL: values["ANTHROPIC_BASE_URL"] ?? Configuration.officialBaseURL, apiKey: apiKey,
                      model: values["ANTHROPIC_MODEL"] ?? "claude-sonnet-4-5",
                      timeout: values["ANTHROPIC_TIMEOUT"].flatMap(Double.init) ?? 120)
            apiKeyProblem = problem
        }
    }

    public static let providerID = "anthropic"
    public var id: String { Self.providerID }
    public var displayName: String { "Anthropic" }
    public var capabilities: Set<ProviderCapability> { [.text] }
    public var defaultModels: [ProviderCapability: String] { [.text: configuration.model] }
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
        guard isConfigured, let key = configuration.apiKey else { throw .notConfigured(provider: id, hint: configurationHint) }
        let model = request.model ?? configuration.model
        let body = try encode { try AnthropicWire.messagesBody(request, model: model) }
        let transport = ProviderHTTPTransport(provider: id, client: configuration.client, timeout: configuration.timeout)
        let response = try await transport.postJSON(
            url: configuration.baseURL + "/v1/messages",
            headers: [("x-api-key", key.value), ("anthropic-version", AnthropicWire.version)], body: body, secret: key)
        var text = try AnthropicWire.decodeMessage(response.body, provider: id)
        if text.model.isEmpty { text.model = model }
        return text
    }
}
