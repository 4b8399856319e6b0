import BookCatalog
import Foundation
import Postgres

/// Asks Open Library which works a title and author as read may be: the candidates a spine or
/// an ISBN-less row is scored against (``BookMatcher``).
///
/// Requests go through the book import's client: the same User-Agent, timeout, size cap and
/// faults (``BookServiceError``: a 429 or 503 is "retry at"), the same shared cache
/// (`http_cache`, kept ``BookServiceSettings/searchTTL``), and the same spacing: every request
/// waits for its slot of Open Library's limit, cluster-wide (docs/books.md, "Politeness and
/// faults"). Run searches in a job whose limit key is ``limitKey`` (`books:openlibrary`, the
/// enrich jobs' limit, whose budget counts requests) and report
/// ``candidates(title:author:limit:)``'s `requests` as its cost (`JobContext.reportCost`).
///
/// ```swift
/// let search = BookSearch(settings: try BookServiceSettings(configuration: configuration), postgres: pool)
/// let (candidates, requests) = try await search.candidates(title: "DUNE", author: "HERBERT")
/// let best = BookMatcher.ranked(title: "DUNE", author: "HERBERT", candidates: candidates).first
/// ```
public struct BookSearch: Sendable {
    let client: BookServiceClient

    /// A search asking the Open Library of `settings`, caching in `postgres`'s `http_cache`.
    public init(settings: BookServiceSettings, postgres: PostgresClient) {
        client = BookServiceClient(settings: settings, postgres: postgres)
    }

    /// The limit to run searches under (the enrich jobs' key, ``BookEnrichJob/defaultLimit``).
    public static let limitKey = BookEnrichJob.defaultLimit

    /// The `/search.json` fields the candidates are read from (Open Library answers its default
    /// fields only, without ISBNs or publishers, unless `fields=` names them): every field of
    /// ``BookCatalog/OpenLibraryResponse/candidateFields``.
    public static let fields = "key,title,subtitle,author_name,first_publish_year,isbn,cover_i,publisher"

    /// The most candidates one search asks for.
    public static let maximumLimit = 100

    /// Open Library's `/search.json` for a title and author (`title=…&author=…&fields=…&limit=N`,
    /// a series suffix left out of the title, an author written "Last, First" turned round),
    /// cached in `http_cache` under `openlibrary:candidates:v1:<N>:<title key>|<author key>`.
    ///
    /// - Parameter limit: candidates wanted, 1 to ``maximumLimit`` (clamped).
    /// - Returns: the candidates in Open Library's order (ISBN-13: the first valid 13-digit ISBN of
    ///   a work's `isbn` list, else a valid ISBN-10 converted), and how many requests went out
    ///   (0 when cached). A title without letters or digits asks nothing and finds nothing.
    /// - Throws: ``BookServiceError`` when Open Library cannot answer, `BookServiceResponseError`
    ///   for an answer that is not a search answer (not cached).
    public func candidates(title: String, author: String?, limit: Int = 5) async throws -> (candidates: [BookCandidate], requests: Int) {
        let limit = min(max(limit, 1), Self.maximumLimit)
        let plainTitle = MatchKey.withoutSeriesSuffix(title)
        guard let bookKey = MatchKey.book(title: plainTitle, author: author) else { return ([], 0) }
        var query = "title=\(BookEnricher.escape(plainTitle))"
        if let author = author?.trimmingCharacters(in: .whitespacesAndNewlines), !author.isEmpty {
            query += "&author=\(BookEnricher.escape(PersonName.turned(author)))"
        }
        let settings = client.settings
        let url = "\(settings.openLibraryURL)/search.json?\(query)&fields=\(Self.fields)&limit=\(limit)"
        let answer = try await client.get(url, service: "openlibrary", cacheKey: "openlibrary:candidates:v1:\(limit):\(bookKey)",
                                          ttl: settings.searchTTL) { try OpenLibraryResponse.searchCandidates($0) }
        return (Array((answer.value ?? []).prefix(limit)), answer.cached ? 0 : 1)
    }
}
