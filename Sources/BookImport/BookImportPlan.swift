import Foundation
import Jobs
import Postgres

/// The `book-import` production plan: one `books.parse` job (created at submission), then done.
/// The enrich stage (Open Library, Google Books) is not part of this build yet; see docs/books.md.
public struct BookImportPlan: ProductionPlan {
    public init() {}

    public var name: String { BookImportRequest.plan }

    public func advance(_ production: ProductionSnapshot, on connection: PostgresConnection) throws -> StageDecision {
        .finish
    }
}
