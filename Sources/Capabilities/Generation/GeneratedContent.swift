import Foundation

/// A `generated_content` row of generated text, an embedding or an image, as written and read
/// by the generation kinds (the SQL is in ``GenerationRows``).
public struct GeneratedContent: Sendable, Equatable {
    public var id: UUID
    public var mimeType: String
    /// `text:…`, `embedding:…`, `image:…` (``GenerationKey``).
    public var contentKey: String
    /// Which provider answered, and with which model.
    public var provider: String
    public var model: String
    /// Text up to ``GeneratedContent/inlineTextLimit`` bytes.
    public var inlineText: String?
    /// A file on the asset volume (an image, a long text), with its size and checksum.
    public var filePath: String?
    public var sizeBytes: Int64?
    public var sha256: String?
    /// An embedding's vector (its model is ``model``).
    public var embedding: [Float]?
    public var jobID: UUID?

    /// Texts longer than this many UTF-8 bytes are written to a file, not inline.
    public static let inlineTextLimit = 8 * 1024

    public init(id: UUID = UUID(), mimeType: String, contentKey: String, provider: String, model: String,
                inlineText: String? = nil, filePath: String? = nil, sizeBytes: Int64? = nil, sha256: String? = nil,
                embedding: [Float]? = nil, jobID: UUID?) {
        (self.id, self.mimeType, self.contentKey, self.provider, self.model) = (id, mimeType, contentKey, provider, model)
        (self.inlineText, self.filePath, self.sizeBytes, self.sha256, self.embedding, self.jobID) =
            (inlineText, filePath, sizeBytes, sha256, embedding, jobID)
    }
}

/// One line of the usage ledger (`generation_usage`): what one provider call used. A reused
/// result records zeros with `reused = true`.
public struct UsageEntry: Sendable, Equatable, Codable {
    public var jobID: UUID
    public var productionID: UUID?
    public var provider: String
    public var model: String
    /// `text`, `embedding`, `image`, `vision` (images in, a structured answer out), or `speech`
    /// (the table read's `generate` jobs).
    public var capability: String
    public var inputTokens: Int
    public var outputTokens: Int
    /// Characters sent (prompt and messages, or the texts embedded).
    public var characters: Int
    public var images: Int
    /// Seconds of audio synthesized (`speech`: the table read's voice is the model).
    public var audioSeconds: Double
    public var reused: Bool

    public init(jobID: UUID, productionID: UUID?, provider: String, model: String, capability: String,
                inputTokens: Int = 0, outputTokens: Int = 0, characters: Int = 0, images: Int = 0, audioSeconds: Double = 0,
                reused: Bool = false) {
        (self.jobID, self.productionID, self.provider, self.model, self.capability) = (jobID, productionID, provider, model, capability)
        (self.inputTokens, self.outputTokens, self.characters, self.images, self.audioSeconds, self.reused) =
            (inputTokens, outputTokens, characters, images, audioSeconds, reused)
    }
}
