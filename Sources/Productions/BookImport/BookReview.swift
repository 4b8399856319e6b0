import BookCatalog
import Foundation

/// An item of the review list: a title and author as read that no book matched surely enough
/// (``BookMatcher/acceptThreshold``), with the candidates it was scored against, until a person
/// accepts one of them (or the reading itself) or rejects it (``BookReviewClient``). An item about
/// a catalog book (``existingBookID``: an imported row without a sure match) is decided for that
/// book: accepting a candidate applies it to the book, keeping it closes the item unchanged.
public struct BookReview: Codable, Sendable, Hashable {
    /// The item's id (`book_reviews.id`).
    public var id: UUID
    /// What opened it: one of ``sources``.
    public var source: String
    /// The production that opened it (nil once that production is gone).
    public var productionID: UUID?
    /// Where in the source ("photo 3, spine 7", "line 12").
    public var reference: String
    /// The title as read.
    public var title: String
    /// The author as read, when one was.
    public var author: String?
    /// The candidates with their scores and evidence, best first.
    public var candidates: [BookMatch]
    /// One of ``states``.
    public var state: String
    /// The catalog book it became when accepted (or, kept, the book it is about).
    public var bookID: UUID?
    /// The catalog book the item is about, when it is one already (a `book-import` row's book,
    /// which kept the reader's own fields); nil for a reading that is no book yet (a spine).
    public var existingBookID: UUID?
    /// When it was opened.
    public var createdAt: Date
    /// When it was accepted or rejected (nil while open).
    public var decidedAt: Date?

    /// An item as stored.
    public init(id: UUID, source: String, productionID: UUID?, reference: String, title: String, author: String?,
                candidates: [BookMatch], state: String, bookID: UUID?, createdAt: Date, decidedAt: Date?, existingBookID: UUID? = nil) {
        (self.id, self.source, self.productionID, self.reference, self.title, self.author) = (id, source, productionID, reference, title, author)
        (self.candidates, self.state, self.bookID, self.createdAt, self.decidedAt) = (candidates, state, bookID, createdAt, decidedAt)
        self.existingBookID = existingBookID
    }

    /// What may open an item: a bookshelf scan's spine, or a book import's row.
    public static let sources = ["bookshelf-scan", "book-import"]
    /// An item is open until a person accepts, rejects or (an item about a catalog book) keeps it.
    public static let states = ["open", "accepted", "rejected", "kept"]

    /// The best candidate, if there is one.
    public var best: BookMatch? { candidates.first }
}
