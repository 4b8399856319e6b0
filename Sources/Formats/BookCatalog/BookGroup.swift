/// One book of an export: the rows that name it (the first is the primary), merged.
public struct BookGroup: Sendable, Hashable, Codable {
    /// Why a row joined a group.
    public enum MergeReason: String, Sendable, Hashable, Codable {
        /// Same ISBN-13.
        case isbn
        /// No ISBN-13 in common; same title and first author key.
        case titleAuthor = "title-author"
    }

    /// A row merged into the group's primary row.
    public struct Merge: Sendable, Hashable, Codable {
        public var line: Int
        public var intoLine: Int
        public var reason: MergeReason
    }

    /// Every row of the book, in file order; each keeps its own ``UserFields``.
    public var rows: [ImportRow]
    /// The rows after the first, and why they merged.
    public var merges: [Merge]

    public init(rows: [ImportRow], merges: [Merge] = []) {
        self.rows = rows
        self.merges = merges
    }

    /// The row whose title and authors name the book.
    public var primary: ImportRow { rows[0] }
    /// The first valid ISBN-13 of the rows.
    public var isbn13: String? { rows.lazy.compactMap(\.isbn.isbn13).first }
    /// The invalid ISBNs the rows carry, as written (cleaned).
    public var invalidISBNs: [String] {
        rows.compactMap { if case let .invalid(text) = $0.isbn { text } else { nil } }
    }
    /// The primary row's title and first author key.
    public var matchKey: String? { primary.matchKey }
    public var title: String { primary.title }
    public var authors: [String] { rows.first { !$0.authors.isEmpty }?.authors ?? [] }
    public var publisher: String? { rows.lazy.compactMap(\.publisher).first }
    public var pages: Int? { rows.lazy.compactMap(\.pages).first }
    public var year: Int? { rows.lazy.compactMap(\.year).first }
}
