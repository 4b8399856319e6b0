import Foundation

/// Everything known about an import so far: its production's state and, once parsed, its report.
public struct BookImportResults: Codable, Sendable, Hashable {
    public var productionID: UUID
    public var name: String
    /// The production's state: `running`, `completed`, `failed`, `cancelled`.
    public var state: String
    public var stage: String
    public var sourceName: String
    public var report: BookImportReport?
    /// The import's books by enrichment state (the fan-in of the enrich stage).
    public var enrichment: BookEnrichmentCounts?
    /// Why jobs of the import failed (the parse job's last error).
    public var failures: [String]
}
