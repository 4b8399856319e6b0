import Foundation

/// An embedding request: one vector per text, in order.
public struct EmbeddingRequest: Sendable, Codable, Equatable, Hashable {
    public var texts: [String]
    /// The model; nil takes the provider's configured default.
    public var model: String?

    public init(texts: [String], model: String? = nil) {
        self.texts = texts
        self.model = model
    }

    /// Throws when there is nothing to embed.
    public func validate() throws(ProviderError) {
        guard !texts.isEmpty else { throw .invalidRequest(reason: "no texts to embed") }
        if let empty = texts.firstIndex(where: { $0.isEmpty }) { throw .invalidRequest(reason: "text \(empty) is empty") }
    }
}

/// What an embedding provider answered: ``vectors`` in the order of the request's texts.
public struct Embeddings: Sendable, Equatable {
    public var vectors: [[Float]]
    public var model: String
    /// The vectors' length (all equal).
    public var dimensions: Int { vectors.first?.count ?? 0 }
    /// Tokens of the input, when the provider reported them.
    public var inputTokens: Int?

    public init(vectors: [[Float]], model: String, inputTokens: Int?) {
        (self.vectors, self.model, self.inputTokens) = (vectors, model, inputTokens)
    }
}
