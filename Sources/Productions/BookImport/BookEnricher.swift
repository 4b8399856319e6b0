import Assets
import BookCatalog
import Foundation
import HTTPExchange
import Postgres

/// Asks the book services about one book and downloads its cover.
///
/// By ISBN-13: Open Library's edition (`/api/books?bibkeys=ISBN:…&jscmd=data&format=json`), then
/// Google Books (`/books/v1/volumes?q=isbn:…`) when a key is set, the second filling the first's
/// gaps. Without ISBN: Open Library's `/search.json` by title and author; a work whose title and
/// author keys agree is taken, and its first ISBN's edition brings the cover. Every answer goes
/// through the shared cache (ISBN look-ups 7 days, searches 6 hours).
struct BookEnricher: Sendable {
    /// A book to enrich, as the catalog has it.
    struct Book: Sendable {
        var id: UUID
        var isbn13: String?
        var title: String
        var author: String?
    }

    /// What the services said.
    enum Outcome: Sendable {
        case enriched(BookMetadata, coverPath: String?, coverProblem: String?)
        case notFound
    }

    let client: BookServiceClient
    let assetsRoot: URL

    var settings: BookServiceSettings { client.settings }

    /// The services' answer about `book`, and how many requests went out (cache hits excluded),
    /// which the job reports as its cost against the limit's budget.
    func enrich(_ book: Book) async throws -> (Outcome, requests: Int) {
        var requests = 0
        let outcome = try await enrich(book, requests: &requests)
        return (outcome, requests)
    }

    private func enrich(_ book: Book, requests: inout Int) async throws -> Outcome {
        var metadata: BookMetadata?
        if let isbn = book.isbn13 {
            metadata = try await openLibraryEdition(isbn, requests: &requests)
            if let google = try await googleVolumeIfUsable(isbn, requests: &requests) {
                metadata = metadata.map { $0.filled(from: google) } ?? google
            }
        } else if let found = try await openLibrarySearch(title: book.title, author: book.author, requests: &requests) {
            metadata = found.metadata
            if let isbn = found.isbn13, let edition = try await openLibraryEdition(isbn, requests: &requests) {
                metadata = found.metadata.filled(from: edition)
                if metadata?.identifiers["isbn_13"] == nil { metadata?.identifiers["isbn_13"] = [isbn] }
            }
        }
        guard let metadata else { return .notFound }
        guard let coverURL = metadata.coverURL else { return .enriched(metadata, coverPath: nil, coverProblem: nil) }
        do {
            requests += 1
            return .enriched(metadata, coverPath: try await cover(coverURL), coverProblem: nil)
        } catch let error as CoverError {
            return .enriched(metadata, coverPath: nil, coverProblem: error.description)
        }
    }

    private func openLibraryEdition(_ isbn: String, requests: inout Int) async throws -> BookMetadata? {
        let url = "\(settings.openLibraryURL)/api/books?bibkeys=ISBN:\(isbn)&jscmd=data&format=json"
        let answer = try await client.get(url, service: "openlibrary", cacheKey: "openlibrary:isbn:\(isbn)", ttl: settings.isbnTTL) {
            try OpenLibraryResponse.edition($0, isbn13: isbn)
        }
        if !answer.cached { requests += 1 }
        return answer.value ?? nil
    }

    private func openLibrarySearch(title: String, author: String?, requests: inout Int) async throws
        -> (metadata: BookMetadata, isbn13: String?)? {
        let plainTitle = MatchKey.withoutSeriesSuffix(title)
        var query = "title=\(Self.escape(plainTitle))"
        if let author, !author.isEmpty { query += "&author=\(Self.escape(PersonName.turned(author)))" }
        // Open Library answers a search with its default fields only (no ISBNs, publishers, page
        // counts or subjects) unless `fields=` names what is wanted.
        let url = "\(settings.openLibraryURL)/search.json?\(query)&fields=\(Self.searchFields)&limit=10"
        // "v2": answers cached before the search asked for its fields lack them.
        let key = "openlibrary:search:v2:\(MatchKey.book(title: title, author: author) ?? plainTitle)"
        let answer = try await client.get(url, service: "openlibrary", cacheKey: key, ttl: settings.searchTTL) {
            try OpenLibraryResponse.searchMatch($0, title: title, author: author)
        }
        if !answer.cached { requests += 1 }
        return answer.value ?? nil
    }

    /// The search result fields the import reads (``OpenLibraryResponse/searchMatch(_:title:author:)``).
    static let searchFields = "key,title,author_name,first_publish_year,isbn,publisher,language,number_of_pages_median,subject"

    /// Google Books' answer, or nil when it refuses the request for good (a 4xx: a key it does not
    /// accept, a quota it will not lift): Open Library's answer stands alone then.
    private func googleVolumeIfUsable(_ isbn: String, requests: inout Int) async throws -> BookMetadata? {
        do {
            return try await googleVolume(isbn, requests: &requests)
        } catch let error as BookServiceError where !error.isRetryable {
            return nil
        }
    }

    private func googleVolume(_ isbn: String, requests: inout Int) async throws -> BookMetadata? {
        guard let key = settings.googleBooksKey else { return nil }
        let url = "\(settings.googleBooksURL)/books/v1/volumes?q=isbn:\(isbn)&key=\(Self.escape(key.value))"
        let answer = try await client.get(url, service: "google-books", cacheKey: "google-books:isbn:\(isbn)", ttl: settings.isbnTTL) {
            try GoogleBooksResponse.volume($0)
        }
        if !answer.cached { requests += 1 }
        return answer.value ?? nil
    }

    /// Downloads a cover, checks it is an image by its first bytes, and stores it content-addressed
    /// (`covers/<sha256>.<ext>`): the same image for two books, or twice, is one file. The URL and
    /// every redirect must pass ``CoverSource``: the answer that named it is not trusted.
    private func cover(_ url: String) async throws -> String {
        let source = CoverSource(settings: settings)
        guard let parsed = URL(string: url) else { throw CoverError.refused("not fetching an unreadable URL") }
        if let reason = await source.refusal(cover: parsed) {
            throw CoverError.refused(BookServiceError.refusedURL(service: "covers", url: HTTPExchange.display(parsed), reason: reason).description)
        }
        let status: Int, body: [UInt8]
        do {
            (status, body) = try await client.fetch(url, service: "covers", limit: settings.maxCoverBytes, redirects: source.redirects)
        } catch let error as BookServiceError where !error.isRetryable {
            throw CoverError.refused(error.description) // too large, or refused for good
        }
        guard status == 200 else { throw CoverError.missing(status: status) }
        guard let kind = ImageKind.sniff(body) else { throw CoverError.notAnImage(bytes: body.count) }
        let data = Data(body)
        let path = "covers/\(AssetStore.sha256(data)).\(kind.fileExtension)"
        let store = try AssetStore(root: assetsRoot)
        if !store.exists(path) { _ = try await store.write(data, to: path, mimeType: kind.mimeType) }
        return path
    }

    static func escape(_ text: String) -> String {
        // RFC 3986 unreserved characters, ASCII only (CharacterSet.alphanumerics holds every
        // script's letters, which would go out unencoded).
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// Why a book was enriched without a cover.
enum CoverError: Error, CustomStringConvertible {
    case missing(status: Int)
    case notAnImage(bytes: Int)
    case refused(String)

    var description: String {
        switch self {
        case let .missing(status): "cover: HTTP \(status)"
        case let .notAnImage(bytes): "cover: not an image (\(bytes) bytes of something else)"
        case let .refused(reason): "cover: \(reason)"
        }
    }
}
