import Assets
import Foundation
import Jobs
import Postgres

/// Registers the book import's job kinds with a worker's registry.
public enum BookImportKinds {
    /// The production plans of the book import (the coordinator drives them).
    public static var plans: [any ProductionPlan] { [BookImportPlan()] }

    /// What the book import's rows name on the asset volume: each import's copy of its export,
    /// which `books.parse` reads however long its queue waits. (Covers live under `covers/`,
    /// which the sweep never touches.)
    public static let assetReferences = AssetReferences(owner: "book import", pathsSQL: "SELECT source_path AS path FROM book_imports")

    /// Registers `books.parse`, and `books.enrich` when the handlers have a database pool;
    /// exports and covers live below `assetsRoot`.
    public static func register(in registry: JobRegistry, assetsRoot: URL, postgres: PostgresClient?,
                                services: BookServiceSettings = BookServiceSettings()) {
        BookParseJob.register(in: registry, assetsRoot: assetsRoot)
        if let postgres {
            BookEnrichJob.register(in: registry, assetsRoot: assetsRoot, postgres: postgres, settings: services)
        }
    }
}
