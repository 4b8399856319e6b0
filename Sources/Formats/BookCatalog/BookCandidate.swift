import Foundation

/// A book that a title and author as read may be: an Open Library search result, or a catalog
/// book offered for scoring (``BookMatcher``).
public struct BookCandidate: Codable, Sendable, Hashable {
    /// The title without its subtitle (when the source gives the two apart).
    public var title: String
    /// The subtitle, when the source gives it apart ("Deluxe Edition", "A Novel").
    public var subtitle: String?
    /// Authors as the source writes them ("Frank Herbert"; "Herbert, Frank" is read too).
    public var authors: [String]
    /// The year of first publication.
    public var year: Int?
    /// A valid ISBN-13 of an edition, when the source knows one.
    public var isbn13: String?
    /// Open Library's key of the work, as it gives it (`/works/OL893415W`).
    public var openLibraryKey: String?
    /// Open Library's cover id (`https://covers.openlibrary.org/b/id/<id>-L.jpg`).
    public var coverID: Int?
    /// The first publisher the source names.
    public var publisher: String?
    /// The catalog book this candidate is, when it came from the catalog: taking it means that
    /// book, never a new one.
    public var catalogID: UUID?

    /// A candidate; only the title is required.
    public init(title: String, subtitle: String? = nil, authors: [String] = [], year: Int? = nil, isbn13: String? = nil,
                openLibraryKey: String? = nil, coverID: Int? = nil, publisher: String? = nil, catalogID: UUID? = nil) {
        (self.title, self.subtitle, self.authors, self.year) = (title, subtitle, authors, year)
        (self.isbn13, self.openLibraryKey, self.coverID, self.publisher, self.catalogID) = (isbn13, openLibraryKey, coverID, publisher, catalogID)
    }

    /// The title with its subtitle after a colon ("Dune: Deluxe Edition"), as a spine or a row
    /// may give the two together.
    public var fullTitle: String {
        guard let subtitle = subtitle?.trimmingSpaces, !subtitle.isEmpty else { return title }
        let subtitleKey = MatchKey.title(subtitle)
        // Some sources repeat the subtitle in the title.
        if !subtitleKey.isEmpty, MatchKey.title(title).hasSuffix(subtitleKey) { return title }
        return title.trimmingSpaces + ": " + subtitle
    }
}
