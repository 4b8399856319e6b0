import BookCatalog
import Foundation
import Postgres

/// The book catalog as a matcher needs it: the books a title and author as read could be, and
/// adding a book without merging it into another. Blocking, on the caller's connection (and, for
/// ``add(_:on:)``, in the caller's transaction).
public enum CatalogBooks {
    /// The most books a look-up returns.
    public static let lookupLimit = 50

    /// Catalog books that could be this title/author, for the caller to score with
    /// ``BookMatcher``: the same ISBN-13 (an ISBN-10 is converted), the same match key
    /// (``MatchKey/book(title:author:)``), or the same title key (``MatchKey/titleKeys(_:)``: also
    /// the title without its subtitle or edition words) whatever the author, so that a spine read
    /// without an author, or with a misread one, finds its book too; and books whose title key
    /// begins with the whole title read (the catalog's "Dune: Deluxe Edition" for "Dune"). At most
    /// ``lookupLimit``, the ISBN's book first, then by title.
    @available(*, noasync)
    public static func lookup(title: String, author: String?, isbn13: String?, on connection: PostgresConnection) throws -> [CatalogEntry] {
        let isbn = isbn13.flatMap { ISBN.normalized(ISBN.clean($0)) }
        let titleKeys = MatchKey.titleKeys(title)
        guard isbn != nil || !titleKeys.isEmpty else { return [] }
        let rows = try connection.query("""
            SELECT b.id, b.title, b.subtitle, b.isbn13,
                   to_jsonb(ARRAY(SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id
                                  WHERE ba.book_id = b.id ORDER BY ba.position)) AS authors
            FROM books b
            WHERE b.isbn13 = $1::text OR b.match_key = $2::text OR split_part(b.match_key, '|', 1) = ANY($3::text[])
               OR ($4::text <> '' AND starts_with(split_part(b.match_key, '|', 1), $4::text || ' '))
            ORDER BY (b.isbn13 = $1::text) IS TRUE DESC, b.title, b.id
            LIMIT $5
            """, [isbn, MatchKey.book(title: title, author: author), titleKeys, titleKeys.first ?? "", lookupLimit])
        return try rows.map { row in
            guard let id = row.uuid("id") else { throw BookRowsError.missingColumn("id") }
            return CatalogEntry(id: id, title: row.string("title") ?? "", subtitle: row.string("subtitle"),
                                authors: try row.json("authors", as: [String].self) ?? [], isbn13: row.string("isbn13"))
        }
    }

    /// Adds a candidate as a catalog book with its authors, through the import's own SQL
    /// (`BookRows`, under the catalog's write lock), never merging it into another book: a book
    /// with the same title and author is added beside it. When the candidate is a catalog book
    /// (``BookCatalog/BookCandidate/catalogID``, from ``CatalogEntry/candidate``) still there, or
    /// its ISBN-13 (an ISBN-10 is converted) is in the catalog already, that book is returned
    /// with `existed` true and nothing changes; an ISBN that fails its checksum is kept in `invalid_isbns`, as the
    /// import keeps them. The book has no library entry and is not enriched: enqueue
    /// ``BookEnrichJob`` for it (in the same transaction) to have a cover and the services' details.
    ///
    /// - Throws: ``CatalogBooksError/noTitle`` for a title without letters or digits; the
    ///   database's errors.
    @available(*, noasync)
    public static func add(_ candidate: BookCandidate, on connection: PostgresConnection) throws -> (id: UUID, existed: Bool) {
        let title = candidate.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let matchKey = MatchKey.book(title: title, author: candidate.authors.first) else { throw CatalogBooksError.noTitle }
        let written = candidate.isbn13.map(ISBN.clean).flatMap { $0.isEmpty ? nil : $0 }
        let isbn = written.flatMap(ISBN.normalized)
        try BookRows.lockCatalog(on: connection)
        if let catalogID = candidate.catalogID,
           let id = try connection.query("SELECT id FROM books WHERE id = $1", [catalogID]).first?.uuid("id") {
            return (id, true)
        }
        if let isbn, let id = try connection.query("SELECT id FROM books WHERE isbn13 = $1", [isbn]).first?.uuid("id") {
            return (id, true)
        }
        let subtitle = candidate.subtitle?.trimmingCharacters(in: .whitespacesAndNewlines)
        let id = try BookRows.insertBook(isbn13: isbn, title: title, matchKey: matchKey,
                                         subtitle: subtitle?.isEmpty == false ? subtitle : nil, publisher: candidate.publisher,
                                         pages: nil, year: candidate.year, invalidISBNs: isbn == nil ? written.map { [$0] } ?? [] : [],
                                         on: connection)
        try BookRows.linkAuthors(id, candidate.authors.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }, on: connection)
        return (id, false)
    }
}

/// Why ``CatalogBooks/add(_:on:)`` added nothing.
public enum CatalogBooksError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The candidate's title has no letters or digits.
    case noTitle

    /// The refusal as one line.
    public var description: String {
        switch self {
        case .noTitle: "a book needs a title with letters or digits"
        }
    }
}
