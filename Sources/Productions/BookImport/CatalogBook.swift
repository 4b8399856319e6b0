import Foundation

/// A book of the catalog as `reparto books list` and `show` print it.
public struct CatalogBook: Codable, Sendable, Hashable {
    public var id: UUID
    public var isbn13: String?
    public var title: String
    public var authors: [String]
    public var publisher: String?
    public var pages: Int?
    public var year: Int?
    /// ISBNs an export gave that failed their checksum.
    public var invalidISBNs: [String]
    /// `enriched`, `not-found`, `failed`, `unmatched` (matched below the threshold: the reader's
    /// own fields, an item on the review list), or nil before enrichment.
    public var enrichStatus: String?
    /// The score of the match taken, or of the best candidate turned down (nil: found by ISBN,
    /// or not matched by a search).
    public var matchScore: Double?
    /// Why, for people (``BookCatalog/BookMatch/evidence``).
    public var matchEvidence: [String]
    /// Parts a service held back, which a follow-up job fetches (`cover`, `google-books`).
    public var enrichPending: [String]
    /// What the book services said (nil or empty before enrichment).
    public var subtitle: String?
    public var publishers: [String]
    public var publishYear: Int?
    public var pageCount: Int?
    public var subjects: [String]
    public var language: String?
    public var description: String?
    /// The cover on the asset volume (relative path).
    public var coverPath: String?
    /// The reader's entry (nil when the book is not in the library any more).
    public var library: LibraryEntry?

    /// The reader's fields of a library book.
    public struct LibraryEntry: Codable, Sendable, Hashable {
        public var rating: Double?
        public var shelves: [String]
        public var status: String
        public var dateAdded: String?
        public var dateRead: String?
    }
}

/// One imported row of a book (`reparto books show`): which import, which line, the row's own fields.
public struct CatalogBookRow: Codable, Sendable, Hashable {
    public var productionID: UUID
    public var line: Int
    public var title: String
    public var mergedIntoLine: Int?
    public var mergeReason: String?
    public var invalidISBN: String?
    public var rating: Double?
    public var shelves: [String]
    public var status: String
}

/// A book with every row that named it.
public struct CatalogBookDetails: Codable, Sendable, Hashable {
    public var book: CatalogBook
    public var rows: [CatalogBookRow]
}
