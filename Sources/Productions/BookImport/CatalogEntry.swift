import BookCatalog
import Foundation

/// A catalog book as ``CatalogBooks/lookup(title:author:isbn13:on:)`` finds it.
public struct CatalogEntry: Sendable, Hashable {
    /// The catalog book's id (`books.id`).
    public var id: UUID
    /// The title as the catalog has it (an export's title may hold its subtitle and a series suffix).
    public var title: String
    /// The subtitle the catalog keeps apart from the title (from a candidate added with one, or
    /// from enrichment), when it has one.
    public var subtitle: String?
    /// In the book's order.
    public var authors: [String]
    /// Its valid ISBN-13, when it has one.
    public var isbn13: String?

    /// An entry as the catalog has it.
    public init(id: UUID, title: String, subtitle: String? = nil, authors: [String], isbn13: String?) {
        (self.id, self.title, self.subtitle, self.authors, self.isbn13) = (id, title, subtitle, authors, isbn13)
    }

    /// The book as a candidate for ``BookMatcher``, with its subtitle (two editions told apart
    /// only by it score apart) and its id (``BookCatalog/BookCandidate/catalogID``: accepting the
    /// candidate from a review item records this book instead of adding one).
    public var candidate: BookCandidate {
        BookCandidate(title: title, subtitle: subtitle, authors: authors, isbn13: isbn13, catalogID: id)
    }
}
