/// One row of an export, read: the book it names and the reader's own fields.
public struct ImportRow: Sendable, Hashable, Codable {
    /// The 1-based line of the file the row starts on.
    public var line: Int
    /// The title as written (series suffix included).
    public var title: String
    /// The authors, primary first ("First Last" as written, or as "Last, First" turned round for
    /// LibraryThing's "Primary Author").
    public var authors: [String]
    /// The ISBN as read: valid (as ISBN-13), invalid (kept, flagged) or missing.
    public var isbn: ISBN.Value
    /// The export's own id of the book (Goodreads' and LibraryThing's "Book Id", StoryGraph's
    /// UID when it is not an ISBN).
    public var sourceID: String?
    public var publisher: String?
    public var pages: Int?
    public var year: Int?
    /// The reader's own fields, kept per row even when rows merge.
    public var user: UserFields
    /// The reader's review as plain text: Goodreads' `<br/>` and LibraryThing's `[Return]` are
    /// line breaks.
    public var review: String?

    /// The key of the title and first author (``MatchKey/book(title:author:)``).
    public var matchKey: String? { MatchKey.book(title: title, author: authors.first) }

    public init(line: Int, title: String, authors: [String], isbn: ISBN.Value, sourceID: String? = nil,
                publisher: String? = nil, pages: Int? = nil, year: Int? = nil, user: UserFields = UserFields(),
                review: String? = nil) {
        (self.line, self.title, self.authors, self.isbn, self.sourceID, self.publisher, self.pages, self.year, self.user)
            = (line, title, authors, isbn, sourceID, publisher, pages, year, user)
        self.review = review
    }
}

/// What the reader said about a book: their rating, shelves or tags, status and dates.
public struct UserFields: Sendable, Hashable, Codable {
    /// Stars, 0.25–5 in quarter steps (StoryGraph rates in quarters, LibraryThing in halves);
    /// `nil` when unrated (Goodreads writes 0 for unrated).
    public var rating: Double?
    public var shelves: [String]
    public var status: ReadStatus
    /// ISO 8601 days (`YYYY-MM-DD`).
    public var dateAdded: String?
    public var dateRead: String?
    /// The day the (last) reading started: LibraryThing's "Date Started", the start of StoryGraph's
    /// "Dates Read" span.
    public var dateStarted: String?

    public init(rating: Double? = nil, shelves: [String] = [], status: ReadStatus = .unknown,
                dateAdded: String? = nil, dateRead: String? = nil, dateStarted: String? = nil) {
        (self.rating, self.shelves, self.status, self.dateAdded, self.dateRead, self.dateStarted)
            = (rating, shelves, status, dateAdded, dateRead, dateStarted)
    }
}

extension ISBN.Value: Codable {
    private enum CodingKeys: String, CodingKey { case isbn13, invalid }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let isbn13 = try container.decodeIfPresent(String.self, forKey: .isbn13) { self = .valid(isbn13: isbn13) }
        else if let invalid = try container.decodeIfPresent(String.self, forKey: .invalid) { self = .invalid(invalid) }
        else { self = .missing }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .missing: break
        case let .valid(isbn13): try container.encode(isbn13, forKey: .isbn13)
        case let .invalid(text): try container.encode(text, forKey: .invalid)
        }
    }
}
