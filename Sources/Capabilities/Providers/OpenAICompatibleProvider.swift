import AsyncHTTPClient
import Foundation
import RepartoConfiguration

/// Text (chat completions), embeddings, images, and answers about images (chat completions with
/// image parts and a JSON Schema) from OpenAI or any server speaking its API (Ollama, vLLM,
/// llama.cpp's server, LM Studio) at `OPENAI_BASE_URL`.
///
/// The key (`OPENAI_API_KEY` or `OPENAI_API_KEY_FILE`) is sent as a Bearer token when set; a
/// base URL other than OpenAI's own is configured without one (local servers need none).
public struct OpenAICompatibleProvider: TextProvider, EmbeddingProvider, ImageProvider, VisionProvider {
    /// Settings, usually from the environment (``init(environment:)``).
    public struct Configuration: Sendable {
        /// The OpenAI API's own address.
        public static let officialBaseURL = "https://api.openai.com"
        /// Without a trailing `/v1` (``ProviderHTTPTransport/normalizedBase(_:)``).
        public var baseURL: String
        public var apiKey: Secret?
        /// Why the key could not be read (both forms set, an unreadable file).
        public var apiKeyProblem: ConfigurationError?
        /// `OPENAI_TEXT_MODEL`, default `gpt-4o-mini`.
        public var textModel: String
        /// `OPENAI_EMBEDDING_MODEL`, default `text-embedding-3-small`.
        public var embeddingModel: String
        /// `OPENAI_IMAGE_MODEL`, default `gpt-image-1`.
        public var imageModel: String
        /// `OPENAI_VISION_MODEL`, default the text model (``textModel``: `gpt-4o-mini` sees images).
        public var visionModel: String
        /// `OPENAI_EMBEDDING_BATCH`: texts per embeddings request, default 256 (OpenAI takes 2,048).
        public var embeddingBatchSize: Int
        /// `OPENAI_TIMEOUT`: seconds for a whole request, default 120.
        public var timeout: TimeInterval
        /// `OPENAI_MAX_TOKENS_FIELD`: the chat completion's token-cap field. Default
        /// `max_completion_tokens` for OpenAI's own API, `max_tokens` for any other base URL
        /// (``OpenAIWire/MaxTokensField``).
        public var maxTokensField: OpenAIWire.MaxTokensField
        /// A setting that cannot be read (an unknown `OPENAI_MAX_TOKENS_FIELD`): the provider is
        /// not configured and says so.
        public var settingProblem: String?
        public var client: HTTPClient

        public init(baseURL: String = Configuration.officialBaseURL, apiKey: Secret?, textModel: String = "gpt-4o-mini",
                    embeddingModel: String = "text-embedding-3-small", imageModel: String = "gpt-image-1",
                    visionModel: String? = nil, embeddingBatchSize: Int = 256, timeout: TimeInterval = 120, maxTokensField: OpenAIWire.MaxTokensField? = nil,
                    client: HTTPClient = .shared) {
            self.baseURL = ProviderHTTPTransport.normalizedBase(baseURL)
            (self.apiKey, self.textModel, self.embeddingModel, self.imageModel) = (apiKey, textModel, embeddingModel, imageModel)
            self.visionModel = visionModel ?? textModel
            (self.embeddingBatchSize, self.timeout, self.client) = (max(1, embeddingBatchSize), timeout, client)
            self.maxTokensField = maxTokensField
                ?? (self.baseURL == Configuration.officialBaseURL ? .maxCompletionTokens : .maxTokens)
        }

        /// Reads `OPENAI_BASE_URL`, the key by the secret rule, and the variables above.
        public init(values: ConfigurationValues) {
            let (apiKey, problem) = values.secretOrProblem("OPENAI_API_KEY")
            self.init(baseURL: values["OPENAI_BASE_URL"] ?? Configuration.officialBaseURL, apiKey: apiKey,
                      textModel: values["OPENAI_TEXT_MODEL"] ?? "gpt-4o-mini",
                      embeddingModel: values["OPENAI_EMBEDDING_MODEL"] ?? "text-embedding-3-small",
                      imageModel: values["OPENAI_IMAGE_MODEL"] ?? "gpt-image-1",
                      visionModel: values["OPENAI_VISION_MODEL"],
                      embeddingBatchSize: values["OPENAI_EMBEDDING_BATCH"].flatMap(Int.init) ?? 256,
                      timeout: values["OPENAI_TIMEOUT"].flatMap(Double.init) ?? 120)
            apiKeyProblem = problem
            if let field = values[Self.maxTokensFieldVariable] {
                if let known = OpenAIWire.MaxTokensField(rawValue: field) {
                    maxTokensField = known
                } else {
                    settingProblem = "\(Self.maxTokensFieldVariable) must be max_tokens or max_completion_tokens, not '\(field)'"
                }
            }
        }

        /// The variable that overrides ``maxTokensField``.
        public static let maxTokensFieldVariable = "OPENAI_MAX_TOKENS_FIELD"

        /// True when the base URL is OpenAI's own, which needs a key.
        public var isOfficial: Bool { baseURL == Configuration.officialBaseURL }
    }

    public static let providerID = "openai"
    public var id: String { Self.providerID }
    public var displayName: String { configuration.isOfficial ? "OpenAI" : "OpenAI-compatible (\(configuration.baseURL))" }
    public var capabilities: Set<ProviderCapability> { [.text, .embedding, .image, .vision] }
    public var defaultModels: [ProviderCapability: String] {
        [.text: configuration.textModel, .embedding: configuration.embeddingModel, .image: configuration.imageModel,
         .vision: configuration.visionModel]
    }
    public var isConfigured: Bool {
        configuration.apiKeyProblem == nil && configuration.settingProblem == nil && (configuration.apiKey != nil || !configuration.isOfficial)
    }
    public var configurationHint: String {
        configuration.apiKeyProblem?.description ?? configuration.settingProblem
            ?? "set OPENAI_API_KEY (or OPENAI_API_KEY_FILE), or OPENAI_BASE_URL=http://127.0.0.1:11434/v1 for a local Ollama"
    }
    public var embeddingBatchSize: Int { configuration.embeddingBatchSize }
    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    public func generateText(_ request: TextGenerationRequest) async throws(ProviderError) -> GeneratedText {
        try request.validate()
        let model = request.model ?? configuration.textModel
        let body = try encode { try OpenAIWire.chatBody(request, model: model, field: configuration.maxTokensField) }
        let response = try await post("/v1/chat/completions", body: body)
        var text = try OpenAIWire.decodeChat(response.body, provider: id)
        if text.model.isEmpty { text.model = model }
        return text
    }

    public func embed(_ request: EmbeddingRequest) async throws(ProviderError) -> Embeddings {
        try request.validate()
        let model = request.model ?? configuration.embeddingModel
        var vectors: [[Float]] = []
        var tokens: Int? = nil
        var answeredModel = model
        var start = 0
        while start < request.texts.count {
            let batch = Array(request.texts[start..<min(start + embeddingBatchSize, request.texts.count)])
            let body = try encode { try OpenAIWire.embeddingsBody(batch, model: model) }
            let response = try await post("/v1/embeddings", body: body)
            let part = try OpenAIWire.decodeEmbeddings(response.body, expected: batch.count, provider: id)
            if let first = vectors.first, first.count != part.dimensions {
                throw .malformedResponse(provider: id, reason: "batches of different dimensions", bodyPrefix: ProviderError.prefix(of: response.body))
            }
            vectors += part.vectors
            if let used = part.inputTokens { tokens = (tokens ?? 0).addingReportingOverflow(used).overflow ? Int.max : (tokens ?? 0) + used }
            if !part.model.isEmpty { answeredModel = part.model }
            start += batch.count
        }
        return Embeddings(vectors: vectors, model: answeredModel, inputTokens: tokens)
    }

    public func generateImage(_ request: ImageRequest) async throws(ProviderError) -> GeneratedImage {
        try request.validate()
        let model = request.model ?? configuration.imageModel
        let body = try encode { try OpenAIWire.imageBody(request, model: model) }
        let response = try await post("/v1/images/generations", body: body)
        return try OpenAIWire.decodeImage(response.body, model: model, provider: id)
    }

    /// One chat completion with the images as `image_url` parts and the schema as a strict
    /// `json_schema` response format (``OpenAIWire/visionBody(_:model:field:)``). OpenAI's limits
    /// (20 MB an image, 50 MB in all) are checked before anything is encoded.
    public func describeImages(_ request: VisionRequest) async throws(ProviderError) -> VisionAnswer {
        try request.validate()
        try OpenAIWire.checkVisionLimits(request)
        let model = request.model ?? configuration.visionModel
        let body = try OpenAIWire.visionBody(request, model: model, field: configuration.maxTokensField)
        let response = try await post("/v1/chat/completions", body: body)
        var answer = try OpenAIWire.decodeVision(response.body, provider: id)
        if answer.model.isEmpty { answer.model = model }
        return answer
    }

    private func post(_ path: String, body: Data) async throws(ProviderError) -> ProviderHTTPTransport.Response {
        guard isConfigured else { throw .notConfigured(provider: id, hint: configurationHint) }
        let transport = ProviderHTTPTransport(provider: id, client: configuration.client, timeout: configuration.timeout)
        let headers = configuration.apiKey.map { [("authorization", "Bearer \($0.value)")] } ?? []
        return try await transport.postJSON(url: configuration.baseURL + path, headers: headers, body: body, secret: configuration.apiKey)
    }
}

/// Runs an encoding step, mapping its (never expected) failure to ``ProviderError/invalidRequest(reason:)``.
func encode(_ body: () throws -> Data) throws(ProviderError) -> Data {
    do { return try body() } catch { throw .invalidRequest(reason: "the request cannot be encoded as JSON") }
}
