import Assets
import Foundation
import RepartoConfiguration
import RepartoRuntime
import Postgres

/// Registers the book import's job kinds with a worker's registry.
public enum BookImportKinds {
    /// The production plans of the book import (the coordinator drives them).
    public static var plans: [any ProductionPlan] { [BookImportPlan()] }

    /// What the book import's rows name on the asset volume: each import's copy of its export,
    /// which `book-import.parse` reads however long its queue waits. (Covers live under `covers/`,
    /// which the sweep never touches.)
    public static let assetReferences = AssetReferences(owner: "book import", pathsSQL: "SELECT source_path AS path FROM book_imports")

    /// Registers `book-import.parse`, `book-import.enrich` and `book-import.prune-cache`; exports
    /// and covers live below `assetsRoot`; the cache's policy is `configuration`'s. Without a
    /// database pool, enrichment and pruning fail each job with that reason.
    public static func register(in registry: JobRegistry, assetsRoot: URL, postgres: PostgresClient?,
                                services: BookServiceSettings = BookServiceSettings(),
                                configuration: ConfigurationValues = ConfigurationValues(environment: [:])) {
        BookParseJob.register(in: registry, assetsRoot: assetsRoot)
        HTTPCachePruneJob.register(in: registry, postgres: postgres, configuration: configuration)
        if let postgres {
            BookEnrichJob.register(in: registry, assetsRoot: assetsRoot, postgres: postgres, settings: services)
        } else {
            registry.register(BookEnrichJob.self) { (_: BookEnrichJob, _: JobContext) throws -> Void in
                throw JobError.permanent("\(BookEnrichJob.kind) needs the database (this process has none)")
            }
        }
    }
}
