import Analysis
import BookImport
import Foundation
import Postgres
import TableRead

/// The results of a production of any type this build runs, found by its id: what
/// `reparto results` shows.
public enum ProductionResults: Sendable {
    case tableRead(TableReadResults)
    case analysis(AnalysisResults)
    case bookImport(BookImportResults)

    /// Asks each production type in turn (table read, analysis, book import) for the production
    /// `id`; nil when none of them has it.
    public static func load(_ id: UUID, postgres: PostgresClient, assetsRoot: URL) async throws -> ProductionResults? {
        if let results = try await TableReadClient(postgres: postgres, assetsRoot: assetsRoot).results(id) { return .tableRead(results) }
        if let results = try await AnalysisClient(postgres: postgres, assetsRoot: assetsRoot).results(id) { return .analysis(results) }
        if let results = try await BookImportClient(postgres: postgres, assetsRoot: assetsRoot).results(id) { return .bookImport(results) }
        return nil
    }
}
