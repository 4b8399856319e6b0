import Foundation

/// Reads Open Library's answers: `/api/books?bibkeys=ISBN:…&jscmd=data&format=json` (an object keyed
/// by the bibkey; `{}` when the book is unknown) and `/search.json` (`docs` of works), and names
/// covers by their cover id (`/b/id/<id>-L.jpg`, which Open Library does not rate-limit the way it
/// limits covers looked up by ISBN).
public enum OpenLibraryResponse {
    struct Named: Decodable { var name: String? }
    struct Cover: Decodable { var small: String?; var medium: String?; var large: String? }
    struct Edition: Decodable {
        var title: String?
        var subtitle: String?
        var authors: [Named]?
        var publishers: [Named]?
        var publish_date: String?
        var number_of_pages: Int?
        var subjects: [Named]?
        var identifiers: [String: [String]]?
        var cover: Cover?
        /// The edition record's cover ids (`jscmd=details`, `/isbn/….json`); `jscmd=data` turns
        /// the first into `cover`.
        var covers: [Int]?
        var key: String?
    }

    /// The public covers host, where a cover id found without a URL is named.
    public static let publicCoversURL = "https://covers.openlibrary.org"

    /// The cover of id `id` on `base` (`https://covers.openlibrary.org/b/id/8231856-L.jpg`).
    public static func coverURL(id: Int, base: String = publicCoversURL, size: String = "L") -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        return "\(base)/b/id/\(id)-\(size).jpg"
    }

    /// The cover id of a cover URL that names one (`…/b/id/8231856-L.jpg`), else nil.
    public static func coverID(in url: String) -> Int? {
        guard let path = URL(string: url)?.path, let range = path.range(of: "/b/id/") else { return nil }
        let digits = path[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 12, let id = Int(digits), id > 0 else { return nil }
        let rest = path[range.upperBound...].dropFirst(digits.count)
        return rest.isEmpty || rest.hasPrefix("-") || rest.hasPrefix(".") ? id : nil
    }

    /// True for a cover looked up by a key other than its id (`/b/isbn/…`, `/b/olid/…`,
    /// `/b/oclc/…`, `/b/lccn/…`): the kind Open Library limits to 100 per IP every 5 minutes.
    public static func isKeyedCover(_ url: String) -> Bool {
        guard let path = URL(string: url)?.path.lowercased() else { return false }
        return ["/b/isbn/", "/b/olid/", "/b/oclc/", "/b/lccn/"].contains { path.hasPrefix($0) }
    }

    /// The edition of `isbn13` in an `/api/books` answer, or nil when the answer is `{}` (not found).
    public static func edition(_ body: [UInt8], isbn13: String) throws(BookServiceResponseError) -> BookMetadata? {
        let editions: [String: Edition]
        do { editions = try JSONDecoder().decode([String: Edition].self, from: Data(body)) } catch {
            throw .malformed(service: "openlibrary", reason: "not a bibkey object (\(body.count) bytes)")
        }
        guard let edition = editions["ISBN:\(isbn13)"] ?? editions.values.first else { return nil }
        guard let title = edition.title, !title.isEmpty else {
            throw .malformed(service: "openlibrary", reason: "an edition without a title")
        }
        var identifiers = edition.identifiers ?? [:]
        if let key = edition.key, identifiers["openlibrary"] == nil {
            identifiers["openlibrary"] = [String(key.split(separator: "/").last ?? Substring(key))]
        }
        return BookMetadata(
            title: title, subtitle: edition.subtitle,
            authors: (edition.authors ?? []).compactMap(\.name),
            publishers: (edition.publishers ?? []).compactMap(\.name),
            publishYear: edition.publish_date.flatMap(year(in:)),
            pageCount: edition.number_of_pages.flatMap { $0 > 0 ? $0 : nil },
            subjects: (edition.subjects ?? []).compactMap(\.name),
            identifiers: identifiers,
            coverURL: edition.cover.flatMap { $0.large ?? $0.medium ?? $0.small }
                ?? edition.covers?.first { $0 > 0 }.map { coverURL(id: $0) })
    }

    struct SearchAnswer: Decodable {
        struct Doc: Decodable {
            var key: String?
            var title: String?
            var subtitle: String?
            var author_name: [String]?
            var cover_i: Int?
            var first_publish_year: Int?
            var isbn: [String]?
            var publisher: [String]?
            var language: [String]?
            var number_of_pages_median: Int?
            var subject: [String]?

            /// Every field a doc is read from: what a search must name in `fields=`.
            enum CodingKeys: String, CodingKey, CaseIterable {
                case key, title, subtitle, author_name, cover_i, first_publish_year, isbn, publisher, language
                case number_of_pages_median, subject
            }
        }
        var numFound: Int?
        var docs: [Doc]
    }

    /// Every `/search.json` field ``searchResults(_:)`` reads. Open Library answers a search with
    /// its default fields only (`key`, `title`, `author_name`, `cover_i`, `first_publish_year`,
    /// `language`, … but not `isbn`, `publisher`, `number_of_pages_median` or `subject`) unless
    /// `fields=` names others, so a search that reads these must ask for all of them.
    public static let searchFields: [String] = SearchAnswer.Doc.CodingKeys.allCases.map(\.rawValue)

    /// The `/search.json` fields ``searchCandidates(_:)`` reads (a subset of ``searchFields``).
    public static let candidateFields = ["key", "title", "subtitle", "author_name", "first_publish_year", "isbn", "cover_i", "publisher"]

    /// A work of a search answer: the candidate a matcher scores, and what the import stores
    /// when it is taken.
    public struct SearchResult: Sendable, Hashable {
        /// The work as ``searchCandidates(_:)`` reads it.
        public var candidate: BookCandidate
        /// Its details: first publication year, publishers (5), median page count, subjects
        /// (20), first language, the work's key (`openlibrary_work`) and ISBN-13 (`isbn_13`).
        /// No cover URL: the cover is ``BookCandidate/coverID``.
        public var metadata: BookMetadata
    }

    /// Every work of a `/search.json` answer with its details, in the answer's order (docs
    /// without a title left out). Read the fields of ``searchFields``.
    public static func searchResults(_ body: [UInt8]) throws(BookServiceResponseError) -> [SearchResult] {
        let answer = try searchAnswer(body)
        return answer.docs.compactMap { doc in
            guard let candidate = candidate(doc) else { return nil }
            var identifiers: [String: [String]] = [:]
            if let key = doc.key { identifiers["openlibrary_work"] = [String(key.split(separator: "/").last ?? Substring(key))] }
            if let isbn = candidate.isbn13 { identifiers["isbn_13"] = [isbn] }
            let metadata = BookMetadata(
                title: candidate.title, subtitle: candidate.subtitle, authors: candidate.authors,
                publishers: Array((doc.publisher ?? []).prefix(5)), publishYear: doc.first_publish_year,
                pageCount: doc.number_of_pages_median.flatMap { $0 > 0 ? $0 : nil },
                subjects: Array((doc.subject ?? []).prefix(20)), language: doc.language?.first, identifiers: identifiers)
            return SearchResult(candidate: candidate, metadata: metadata)
        }
    }

    private static func searchAnswer(_ body: [UInt8]) throws(BookServiceResponseError) -> SearchAnswer {
        do { return try JSONDecoder().decode(SearchAnswer.self, from: Data(body)) } catch {
            throw .malformed(service: "openlibrary", reason: "not a search answer (\(body.count) bytes)")
        }
    }

    /// The best work of a `/search.json` answer for `title` by `author`: the first doc whose title
    /// and first author have the same match keys, else nil (a search's first hit is often another
    /// book). `isbn13` is its first valid ISBN, for an edition look-up that brings the cover.
    /// Equal keys are not a score: the book import matches with ``searchResults(_:)`` and
    /// ``BookMatcher`` (a title without an author, or authors that disagree, never match).
    public static func searchMatch(_ body: [UInt8], title: String, author: String?) throws(BookServiceResponseError)
        -> (metadata: BookMetadata, isbn13: String?)? {
        let answer: SearchAnswer
        do { answer = try JSONDecoder().decode(SearchAnswer.self, from: Data(body)) } catch {
            throw .malformed(service: "openlibrary", reason: "not a search answer (\(body.count) bytes)")
        }
        let wanted = MatchKey.title(title)
        let wantedAuthor = author.map(MatchKey.author)
        for doc in answer.docs {
            guard let docTitle = doc.title, MatchKey.title(docTitle) == wanted else { continue }
            if let wantedAuthor, !wantedAuthor.isEmpty,
               !(doc.author_name ?? []).contains(where: { MatchKey.author($0) == wantedAuthor }) { continue }
            var identifiers: [String: [String]] = [:]
            if let key = doc.key { identifiers["openlibrary_work"] = [String(key.split(separator: "/").last ?? Substring(key))] }
            let isbn13 = (doc.isbn ?? []).lazy.compactMap { ISBN.normalized(ISBN.clean($0)) }.first
            let metadata = BookMetadata(
                title: docTitle, authors: doc.author_name ?? [], publishers: Array((doc.publisher ?? []).prefix(5)),
                publishYear: doc.first_publish_year, pageCount: doc.number_of_pages_median,
                subjects: Array((doc.subject ?? []).prefix(20)), language: doc.language?.first, identifiers: identifiers)
            return (metadata, isbn13)
        }
        return nil
    }

    /// Every work of a `/search.json` answer as a candidate, in the answer's order (docs without
    /// a title left out). Its ISBN-13 is the first valid 13-digit ISBN of the doc's `isbn` list,
    /// else its first valid ISBN-10 converted; its publisher the first of `publisher`; its key
    /// the work's (`/works/OL…W`).
    public static func searchCandidates(_ body: [UInt8]) throws(BookServiceResponseError) -> [BookCandidate] {
        try searchAnswer(body).docs.compactMap(candidate)
    }

    private static func candidate(_ doc: SearchAnswer.Doc) -> BookCandidate? {
        guard let title = doc.title?.trimmingSpaces, !title.isEmpty else { return nil }
        let subtitle = doc.subtitle?.trimmingSpaces
        return BookCandidate(title: title, subtitle: subtitle?.isEmpty == false ? subtitle : nil,
                             authors: (doc.author_name ?? []).filter { !$0.trimmingSpaces.isEmpty },
                             year: doc.first_publish_year, isbn13: ISBN.preferredISBN13(in: doc.isbn ?? []),
                             openLibraryKey: doc.key, coverID: doc.cover_i.flatMap { $0 > 0 ? $0 : nil },
                             publisher: doc.publisher?.first)
    }

    /// The four-digit year in a free-form publish date ("March 2005", "2005-03-01", "c1965").
    static func year(in text: String) -> Int? {
        var digits = ""
        for character in text {
            if character.isASCII && character.isNumber {
                digits.append(character)
                if digits.count == 4 { return Int(digits) }
            } else {
                digits = ""
            }
        }
        return nil
    }
}
