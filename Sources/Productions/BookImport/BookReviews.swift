import BookCatalog
import Foundation
import Postgres

/// Opens review items from inside a job: in the job's own transaction, so an item exists if
/// and only if the work that found it is committed.
public enum BookReviews {
    /// Opens a review item in the caller's transaction; returns its id. The candidates are
    /// stored best first (by score, ties in the given order).
    ///
    /// - Parameters:
    ///   - source: one of ``BookReview/sources`` (`bookshelf-scan`, `book-import`).
    ///   - reference: where in the source ("photo 3, spine 7").
    ///   - existingBookID: the catalog book the reading already is (an imported row's book), when
    ///     it is one: accepting a candidate then applies it to that book instead of adding one.
    /// - Throws: ``BookReviewError/invalidSource(_:)``, ``BookReviewError/noTitle`` for a blank
    ///   title; the database's errors.
    @available(*, noasync)
    public static func open(source: String, productionID: UUID?, reference: String, title: String, author: String?,
                            candidates: [BookMatch], existingBookID: UUID? = nil, on connection: PostgresConnection) throws -> UUID {
        guard BookReview.sources.contains(source) else { throw BookReviewError.invalidSource(source) }
        guard !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw BookReviewError.noTitle }
        let sorted = candidates.enumerated().sorted { a, b in
            a.element.score != b.element.score ? a.element.score > b.element.score : a.offset < b.offset
        }.map(\.element)
        let author = author?.trimmingCharacters(in: .whitespacesAndNewlines)
        return try BookReviewRows.insert(source: source, productionID: productionID, reference: reference, title: title,
                                         author: author?.isEmpty == false ? author : nil, candidates: sorted,
                                         existingBookID: existingBookID, on: connection)
    }
}
