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

    public var productionID: UUID
    public var sourceName: String
    public var logline: String?
    public var synopsis: String?
    public var scenes: [Scene]
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
