import Foundation

/// What an analysis produced: logline, synopsis, and each scene's summary.
public struct AnalysisResults: Codable, Sendable, Equatable {
    public struct Scene: Codable, Sendable, Equatable {
        public var index: Int
        public var heading: String
        public var summary: String?
        /// The provider that wrote the summary.
        public var provider: String?
        /// Whether the scene's embedding is stored (search finds it).
        public var embedded: Bool
    }

    /// A speaking character and the description written from their lines.
    public struct Character: Codable, Sendable, Equatable {
        public var name: String
        /// How many lines they speak.
        public var lines: Int
        public var description: String?
    }

    public var productionID: UUID
    public var sourceName: String
    public var logline: String?
    public var synopsis: String?
    public var scenes: [Scene]
    public var characters: [Character]
}

/// One search hit.
public struct SceneMatch: Codable, Sendable, Equatable {
    public var productionID: UUID
    public var scene: Int
    public var heading: String
    public var summary: String?
    /// Cosine similarity to the query.
    public var score: Double
}
