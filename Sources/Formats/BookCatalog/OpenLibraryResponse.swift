import Foundation

/// Reads Open Library's answers: `/api/books?bibkeys=ISBN:…&jscmd=data&format=json` (an object keyed
/// by the bibkey; `{}` when the book is unknown) and `/search.json` (`docs` of works).
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
        var key: String?
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
            coverURL: edition.cover.flatMap { $0.large ?? $0.medium ?? $0.small })
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
        }
        var numFound: Int?
        var docs: [Doc]
    }

    /// The best work of a `/search.json` answer for `title` by `author`: the first doc whose title
    /// and first author have the same match keys, else nil (a search's first hit is often another
    /// book). `isbn13` is its first valid ISBN, for an edition look-up that brings the cover.
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
        let answer: SearchAnswer
        do { answer = try JSONDecoder().decode(SearchAnswer.self, from: Data(body)) } catch {
            throw .malformed(service: "openlibrary", reason: "not a search answer (\(body.count) bytes)")
        }
        return answer.docs.compactMap { doc in
            guard let title = doc.title?.trimmingSpaces, !title.isEmpty else { return nil }
            let subtitle = doc.subtitle?.trimmingSpaces
            return BookCandidate(title: title, subtitle: subtitle?.isEmpty == false ? subtitle : nil,
                                 authors: (doc.author_name ?? []).filter { !$0.trimmingSpaces.isEmpty },
                                 year: doc.first_publish_year, isbn13: ISBN.preferredISBN13(in: doc.isbn ?? []),
                                 openLibraryKey: doc.key, coverID: doc.cover_i.flatMap { $0 > 0 ? $0 : nil },
                                 publisher: doc.publisher?.first)
        }
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
