import BookCatalog
import Foundation
import Postgres
import RepartoRuntime

/// The SQL of `book_reviews` (blocking, on the caller's connection).
enum BookReviewRows {
    private static let columns = """
        id, source, production_id, reference, title, author, candidates, state, book_id, created_at, decided_at, existing_book_id
        """

    static func insert(source: String, productionID: UUID?, reference: String, title: String, author: String?,
                       candidates: [BookMatch], existingBookID: UUID?, on connection: PostgresConnection) throws -> UUID {
        let json = String(decoding: try JSONEncoder.jobs.encode(candidates), as: UTF8.self)
        let row = try connection.query("""
            INSERT INTO book_reviews (source, production_id, reference, title, author, candidates, existing_book_id)
            VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) RETURNING id
            """, [source, productionID, reference, title, author, json, existingBookID]).first
        guard let id = row?.uuid("id") else { throw BookRowsError.missingColumn("id") }
        return id
    }

    /// Items in `state` (every item when nil), oldest first.
    static func list(state: String?, limit: Int, on connection: PostgresConnection) throws -> [BookReview] {
        try connection.query("""
            SELECT \(columns) FROM book_reviews WHERE $1::text IS NULL OR state = $1::text
            ORDER BY created_at, id LIMIT $2
            """, [state, limit]).map(review)
    }

    /// One item; with `locking`, its row locked until the transaction ends.
    static func review(_ id: UUID, locking: Bool = false, on connection: PostgresConnection) throws -> BookReview? {
        try connection.query("SELECT \(columns) FROM book_reviews WHERE id = $1" + (locking ? " FOR UPDATE" : ""), [id])
            .first.map(review)
    }

    /// Records a person's decision.
    static func decide(_ id: UUID, state: String, bookID: UUID?, on connection: PostgresConnection) throws -> BookReview {
        guard let row = try connection.query("""
            UPDATE book_reviews SET state = $2, book_id = $3, decided_at = now() WHERE id = $1 RETURNING \(columns)
            """, [id, state, bookID]).first else { throw BookReviewError.unknownReview(id) }
        return try review(row)
    }

    /// At most two ids that start with `hexDigits` (hyphens ignored).
    static func ids(startingWith hexDigits: String, on connection: PostgresConnection) throws -> [UUID] {
        try connection.query("""
            SELECT id FROM book_reviews WHERE starts_with(replace(id::text, '-', ''), $1::text) ORDER BY id LIMIT 2
            """, [hexDigits]).compactMap { $0.uuid("id") }
    }

    private static func review(_ row: PostgresRow) throws -> BookReview {
        guard let id = row.uuid("id") else { throw BookRowsError.missingColumn("id") }
        guard let createdAt = row.date("created_at") else { throw BookRowsError.missingColumn("created_at") }
        return BookReview(id: id, source: row.string("source") ?? "", productionID: row.uuid("production_id"),
                          reference: row.string("reference") ?? "", title: row.string("title") ?? "", author: row.string("author"),
                          candidates: try row.json("candidates", as: [BookMatch].self) ?? [], state: row.string("state") ?? "",
                          bookID: row.uuid("book_id"), createdAt: createdAt, decidedAt: row.date("decided_at"),
                          existingBookID: row.uuid("existing_book_id"))
    }
}
