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
        /// The scene's storyboard frame, when the analysis drew one.
        public var frame: Frame?
    }

    /// A storyboard frame: a PNG on the asset volume.
    public struct Frame: Codable, Sendable, Equatable {
        /// Relative to the asset root (`REPARTO_ASSETS`).
        public var path: String
        /// SHA-256 of the file, hex.
        public var sha256: String
        /// The image provider that drew it.
        public var provider: String
        /// The absolute path, when the reader knows the asset root.
        public var file: String?

        public init(path: String, sha256: String, provider: String, file: String? = nil) {
            (self.path, self.sha256, self.provider, self.file) = (path, sha256, provider, file)
        }
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
