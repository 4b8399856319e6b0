import BookCatalog
import Foundation
import HTTPExchange
import Postgres

/// Asks the book services about one book and downloads its cover, failing loudly rather than
/// taking the wrong book.
///
/// By ISBN-13: Open Library's edition (`/api/books?bibkeys=ISBN:…&jscmd=data&format=json`), then
/// Google Books (`/books/v1/volumes?q=isbn:…`) when a key is set, the second filling the first's
/// gaps; an edition whose authors disagree with the row's (a mistyped ISBN names another book) is
/// not taken. Without ISBN: Open Library's `/search.json` by title and author, asking `fields=`
/// for every field it reads (``OpenLibraryResponse/searchFields``), and every work scored with
/// ``BookMatcher``: the best at or above ``BookMatcher/acceptThreshold`` is taken with its score
/// and evidence; below it the book keeps the reader's own fields and goes to the review list.
/// Covers are fetched by their Open Library id where one is known (``BookCoverFetcher``). Every
/// answer goes through the shared cache (ISBN look-ups 7 days, searches 6 hours).
struct BookEnricher: Sendable {
    /// A book to enrich, as the catalog has it.
    struct Book: Sendable {
        var id: UUID
        var isbn13: String?
        var title: String
        /// In the book's order.
        var authors: [String]
        /// Where it was read, for a review item ("goodreads.csv, line 12").
        var reference: String = "catalog book"
        /// Open Library's cover id and another service's cover URL, as stored.
        var coverID: Int?
        var coverURL: String?
        /// Whether a cover is stored already.
        var hasCover = false
        /// What a service held back before.
        var pending: Set<BookEnrichJob.Part> = []

        /// The first author: the search's `author=`.
        var author: String? { authors.first }
        /// Every author as one reading, for ``BookMatcher`` ("Terry Pratchett; Neil Gaiman").
        var authorsRead: String? { authors.isEmpty ? nil : authors.joined(separator: "; ") }
    }

    /// What the services said.
    enum Outcome: Sendable {
        /// Found: by ISBN, or a search match at or above the threshold.
        case enriched(Enrichment)
        /// Candidates found, none surely this book (or its ISBN's edition is by other authors):
        /// the candidates scored against the reading, best first.
        case unmatched([BookMatch])
        /// Nothing found; `pending` holds a service that was held back (it may still know it).
        case notFound(pending: Set<BookEnrichJob.Part>)
    }

    /// What is stored for a book found.
    struct Enrichment: Sendable {
        var metadata: BookMetadata
        /// The match's score and evidence (nil score: found by ISBN).
        var score: Double?
        var evidence: [String]
        var coverID: Int?
        var coverURL: String?
        var coverPath: String?
        var coverProblem: String?
        /// Parts a service held back: a follow-up job asks for them.
        var pending: Set<BookEnrichJob.Part> = []
    }

    /// Requests that went out (cache hits excluded): all of them, and those to Open Library's API,
    /// which the job reports as its cost against the limit's budget.
    struct Requests: Sendable, Equatable {
        var total = 0
        var openLibrary = 0
    }

    let client: BookServiceClient
    let assetsRoot: URL

    var settings: BookServiceSettings { client.settings }
    var covers: BookCoverFetcher { BookCoverFetcher(client: client, assetsRoot: assetsRoot) }

    /// The services' answer about `book`, and the requests that went out.
    func enrich(_ book: Book) async throws -> (Outcome, requests: Requests) {
        var requests = Requests()
        let outcome: Outcome
        if let isbn = book.isbn13 {
            outcome = try await byISBN(book, isbn: isbn, requests: &requests)
        } else {
            outcome = try await bySearch(book, requests: &requests)
        }
        guard case var .enriched(found) = outcome else { return (outcome, requests) }
        try await fetchCover(&found, requests: &requests)
        return (.enriched(found), requests)
    }

    private func byISBN(_ book: Book, isbn: String, requests: inout Requests) async throws -> Outcome {
        var metadata = try await openLibraryEdition(isbn, requests: &requests)
        var pending: Set<BookEnrichJob.Part> = []
        switch try await googleVolume(isbn, requests: &requests) {
        case let .found(google): metadata = metadata.map { $0.filled(from: google) } ?? google
        case .held: pending.insert(.googleBooks)
        case .none, .refused: break
        }
        guard let metadata else { return .notFound(pending: pending) }
        let candidate = BookCandidate(title: metadata.title, subtitle: metadata.subtitle, authors: metadata.authors,
                                      year: metadata.publishYear, isbn13: isbn,
                                      openLibraryKey: metadata.identifiers["openlibrary"]?.first.map { "/books/\($0)" },
                                      coverID: metadata.coverURL.flatMap(OpenLibraryResponse.coverID(in:)),
                                      publisher: metadata.publishers.first)
        // An ISBN names an edition whatever its title; but one whose authors are not the row's
        // is another book (a mistyped ISBN), not this one.
        if Self.authorsDisagree(book, candidate) {
            var match = BookMatcher.score(title: book.title, author: book.authorsRead, candidate: candidate)
            match.evidence.insert("ISBN-13 \(isbn) names this edition, by other authors", at: 0)
            return .unmatched([match])
        }
        return .enriched(Enrichment(metadata: metadata, score: nil, evidence: ["found by ISBN-13 \(isbn)"],
                                    coverID: candidate.coverID, coverURL: metadata.coverURL, pending: pending))
    }

    private func bySearch(_ book: Book, requests: inout Requests) async throws -> Outcome {
        let results = try await openLibrarySearch(title: book.title, author: book.author, requests: &requests)
        guard !results.isEmpty else { return .notFound(pending: []) }
        let ranked = BookMatcher.ranked(title: book.title, author: book.authorsRead, candidates: results.map(\.candidate))
        guard let best = ranked.first, best.isAccepted, let result = results.first(where: { $0.candidate == best.candidate }) else {
            return .unmatched(Array(ranked.prefix(Self.reviewCandidates)))
        }
        return .enriched(Enrichment(metadata: result.metadata, score: best.score, evidence: best.evidence,
                                    coverID: best.candidate.coverID, coverURL: nil))
    }

    /// The most candidates a review item of an unmatched row keeps.
    static let reviewCandidates = 5

    /// Whether both sides name authors and no pair of them agrees: the edition's title scored
    /// against itself leaves only the authors' verdict (disagreeing authors halve it).
    static func authorsDisagree(_ book: Book, _ candidate: BookCandidate) -> Bool {
        guard !book.authors.isEmpty, !candidate.authors.isEmpty else { return false }
        let probe = BookCandidate(title: candidate.title, authors: candidate.authors)
        return BookMatcher.score(title: candidate.title, author: book.authorsRead, candidate: probe).score < 0.6
    }

    /// Fetches the cover of a book found: by its Open Library id when known, else the URL the
    /// answer named. A cover the covers service holds back becomes a pending part.
    func fetchCover(_ found: inout Enrichment, requests: inout Requests) async throws {
        guard let url = BookCoverFetcher.source(id: found.coverID, url: found.coverURL, settings: settings) else { return }
        if found.coverID == nil { found.coverID = OpenLibraryResponse.coverID(in: url) }
        let (outcome, sent) = try await covers.fetch(url)
        if sent { requests.total += 1 }
        switch outcome {
        case let .stored(path): found.coverPath = path
        case let .problem(reason): found.coverProblem = reason
        case let .deferred(reason):
            found.coverProblem = reason
            found.pending.insert(.cover)
        }
    }

    private func openLibraryEdition(_ isbn: String, requests: inout Requests) async throws -> BookMetadata? {
        let url = "\(settings.openLibraryURL)/api/books?bibkeys=ISBN:\(isbn)&jscmd=data&format=json"
        let answer = try await client.get(url, service: BookServiceLane.openLibrary.rawValue, cacheKey: "openlibrary:isbn:\(isbn)",
                                          ttl: settings.isbnTTL) { try OpenLibraryResponse.edition($0, isbn13: isbn) }
        if !answer.cached { requests.total += 1; requests.openLibrary += 1 }
        return answer.value ?? nil
    }

    /// Open Library's works for a title and author, asking `fields=` for every field read.
    private func openLibrarySearch(title: String, author: String?, requests: inout Requests) async throws
        -> [OpenLibraryResponse.SearchResult] {
        let plainTitle = MatchKey.withoutSeriesSuffix(title)
        var query = "title=\(Self.escape(plainTitle))"
        if let author, !author.isEmpty { query += "&author=\(Self.escape(PersonName.turned(author)))" }
        let url = "\(settings.openLibraryURL)/search.json?\(query)&fields=\(Self.searchFields)&limit=\(Self.searchLimit)"
        // "v3": answers cached before the search asked for every field it reads lack some.
        let key = "openlibrary:search:v3:\(MatchKey.book(title: title, author: author) ?? plainTitle)"
        let answer = try await client.get(url, service: BookServiceLane.openLibrary.rawValue, cacheKey: key, ttl: settings.searchTTL) {
            try OpenLibraryResponse.searchResults($0)
        }
        if !answer.cached { requests.total += 1; requests.openLibrary += 1 }
        return answer.value ?? []
    }

    /// The search result fields the import reads (``OpenLibraryResponse/searchFields``).
    static let searchFields = OpenLibraryResponse.searchFields.joined(separator: ",")
    /// The works one search asks for.
    static let searchLimit = 10

    /// Google Books' answer about an ISBN.
    enum GoogleAnswer: Sendable {
        /// No key set, or no volume.
        case none
        case found(BookMetadata)
        /// Refused for good (a 4xx: a key it does not accept): Open Library's answer stands alone.
        case refused
        /// Over its quota (or held back since): ask again when the hold ends.
        case held
    }

    func googleVolume(_ isbn: String, requests: inout Requests) async throws -> GoogleAnswer {
        guard let key = settings.googleBooksKey else { return .none }
        let url = "\(settings.googleBooksURL)/books/v1/volumes?q=isbn:\(isbn)&key=\(Self.escape(key.value))"
        do {
            let answer = try await client.get(url, service: BookServiceLane.googleBooks.rawValue, cacheKey: "google-books:isbn:\(isbn)",
                                              ttl: settings.isbnTTL) { try GoogleBooksResponse.volume($0) }
            if !answer.cached { requests.total += 1 }
            return (answer.value ?? nil).map(GoogleAnswer.found) ?? .none
        } catch let error as BookServiceError {
            switch error {
            case .held: return .held
            case .rateLimited: requests.total += 1; return .held
            case _ where !error.isRetryable: requests.total += 1; return .refused
            default: throw error
            }
        }
    }

    static func escape(_ text: String) -> String {
        // RFC 3986 unreserved characters, ASCII only (CharacterSet.alphanumerics holds every
        // script's letters, which would go out unencoded).
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
