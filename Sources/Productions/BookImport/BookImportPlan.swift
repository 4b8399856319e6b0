import Foundation
import RepartoRuntime
import Postgres

/// The `book-import` production plan: parse → enrich.
///
/// - **parse**: one `books.parse` job (created at submission) stores the export's books.
/// - **enrich**: fan-out, one `books.enrich` job per ``BookImportRequest/booksPerJob`` books of the
///   import that have no answer yet (never enriched, or failed before); a re-import of books
///   already enriched has no enrich jobs at all. Skipped when the parse failed or the request
///   says `enrich: false`.
///
/// The fan-in is the results: `BookImportClient.results` counts the import's books by state.
public struct BookImportPlan: ProductionPlan {
    public init() {}

    public var name: String { BookImportRequest.plan }

    /// The enrich jobs' book lists: `pending` in chunks of `size`.
    static func batches(_ pending: [UUID], size: Int) -> [[UUID]] {
        let size = min(max(1, size), 100)  // the client's range; stored parameters may say anything
        return stride(from: 0, to: pending.count, by: size).map { Array(pending[$0..<min($0 + size, pending.count)]) }
    }

    public func advance(_ production: ProductionSnapshot, on connection: PostgresConnection) throws -> StageDecision {
        let request = try JSONDecoder().decode(BookImportRequest.self, from: production.parameters)
        guard BookImportRequest.Stage(rawValue: production.stage) == .parse, request.enrich,
              try ProductionJobs.stageSucceeded(production: production.id, stage: production.stage, on: connection)
        else { return .finish }
        let pending = try BookEnrichRows.pending(production: production.id, on: connection)
        guard !pending.isEmpty else { return .finish }
        let jobs = try Self.batches(pending, size: request.booksPerJob).map { batch in
            var options = request.jobOptions
            options.cost = Double(batch.count) // about a request a book; the job reports what it asked
            return try JobRequest(BookEnrichJob(bookIDs: batch), options: options)
        }
        return .next(stage: BookImportRequest.Stage.enrich.rawValue, jobs: jobs)
    }
}
