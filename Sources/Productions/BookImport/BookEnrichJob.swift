import BookCatalog
import Foundation
import RepartoRuntime
import Postgres

/// The enrich stage of a book import: one job per N books (fan-out) asks the book services about
/// each and stores what they say in its completion transaction.
///
/// Requests are spaced by the services' limits (see ``BookServiceSettings/defaultLimits``). A 429
/// or 503 from Open Library's API makes the whole job "retry at" the instant the service names
/// (answers already received are in the cache, so the next attempt asks only what is left);
/// other failures retry with backoff, and on the job's last attempt the books still failing are
/// recorded as `failed` so the rest of the job's books keep their answers; a fault no retry
/// cures (a malformed answer counts as curable) fails its book at once.
///
/// A row without ISBN matched below ``BookMatcher/acceptThreshold`` (or an ISBN whose edition is
/// by other authors) is `unmatched`: it keeps the reader's own fields and gets an item on the
/// review list (source `book-import`) in the same transaction. A cover or a Google Books answer
/// a service held back (a 403 on covers, Google's quota errors) fails nothing: the book is stored
/// with what it has, the part is *pending*, and a follow-up job of this kind (``parts``, under
/// that service's limit) asks for it when the service's hold ends. A cover that is too large or
/// refused for good leaves its book enriched without a cover; Google Books refusing for good (a
/// 4xx that is not a quota) leaves Open Library's answer alone.
public struct BookEnrichJob: JobParameters {
    public static let kind = "book-import.enrich"
    public static let queue = "books"
    /// Limits apply per service; Open Library is asked first for every book.
    public static let defaultLimit = "books:openlibrary"

    /// The books to enrich: one to ``maximumBooks``.
    public var bookIDs: [UUID]
    /// Only these parts of the books (a follow-up after a service held them back), nil for a
    /// whole enrichment.
    public var parts: [Part]?

    /// What a follow-up job asks for.
    public enum Part: String, Codable, Sendable, CaseIterable {
        /// The cover (``BookServiceSettings/coversLimit``).
        case cover
        /// Google Books' answer, to fill Open Library's gaps (``BookServiceSettings/googleBooksLimit``).
        case googleBooks = "google-books"

        /// The limit a follow-up of this part runs under.
        public var limit: String {
            switch self {
            case .cover: BookServiceSettings.coversLimit
            case .googleBooks: BookServiceSettings.googleBooksLimit
            }
        }
    }

    /// The most books one job may carry (an import puts at most 100 in each).
    public static let maximumBooks = 1_000

    /// A whole enrichment of `bookIDs`, or (with `parts`) a follow-up asking only for those parts.
    public init(bookIDs: [UUID], parts: [Part]? = nil) { (self.bookIDs, self.parts) = (bookIDs, parts) }

    private enum CodingKeys: String, CodingKey {
        case bookIDs, parts
    }

    /// Refuses no or more than ``maximumBooks`` books, and an empty list of parts
    /// (``JobError/invalidParameter(kind:field:reason:)``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bookIDs = try container.decode([UUID].self, forKey: .bookIDs, count: 1...Self.maximumBooks)
        if container.contains(.parts), try !container.decodeNil(forKey: .parts) {
            parts = try container.decode([Part].self, forKey: .parts, count: 1...Part.allCases.count)
        }
    }

    /// `books:openlibrary`; a follow-up of one part runs under that part's limit.
    public var limitKey: String? {
        if let parts, parts.count == 1 { return parts[0].limit }
        return Self.defaultLimit
    }

    public static func register(in registry: JobRegistry, assetsRoot: URL, postgres: PostgresClient,
                                settings: BookServiceSettings, timeout: Double = 600) {
        let enricher = BookEnricher(client: BookServiceClient(settings: settings, postgres: postgres), assetsRoot: assetsRoot)
        registry.register(BookEnrichJob.self, timeout: timeout) { parameters, context in
            if let parts = parameters.parts {
                return try await BookFollowUp(enricher: enricher, postgres: postgres).run(parameters.bookIDs, parts: Set(parts), context: context)
            }
            return try await run(parameters, context: context, enricher: enricher, postgres: postgres)
        }
    }

    static func run(_ parameters: BookEnrichJob, context: JobContext, enricher: BookEnricher,
                    postgres: PostgresClient) async throws -> BookEnrichResult {
        let ids = parameters.bookIDs, production = context.productionID
        let books = try await postgres.withConnection { try BookEnrichRows.books(ids, production: production, on: $0) }
        let lastAttempt = context.attempt >= context.maxAttempts
        var outcomes: [(BookEnricher.Book, BookEnricher.Outcome)] = []
        var failed: [(UUID, String)] = []
        var requests = BookEnricher.Requests()
        for book in books {
            do {
                let (outcome, asked) = try await enricher.enrich(book)
                requests.total += asked.total
                requests.openLibrary += asked.openLibrary
                outcomes.append((book, outcome))
            } catch let error as any RetryAtError where error.retryAt != nil {
                throw error
            } catch {
                // A fault that a retry may cure fails the attempt (the next asks only what the
                // cache lacks); one it cannot, or any on the last attempt, fails only this book.
                let retryable = (error as? any RetryableError)?.isRetryable ?? true
                guard lastAttempt || !retryable, !(error is CancellationError) else { throw error }
                failed.append((book.id, "\(error)"))
            }
        }
        // The budget of the job's limit counts Open Library's requests (estimated at one per book).
        context.reportCost(Double(requests.openLibrary))
        let followUps = try await BookFollowUp.requests(for: outcomes.map { ($0.0.id, Self.pending($0.1)) }, pacer: enricher.client.pacer)
        let stored = outcomes
        let failures = failed
        context.transactional { connection in
            for (book, outcome) in stored {
                try BookEnrichRows.store(book.id, outcome, on: connection)
                if case let .unmatched(candidates) = outcome {
                    try BookEnrichRows.openReview(book, candidates: candidates, production: production, on: connection)
                }
            }
            for (id, reason) in failures { try BookEnrichRows.markFailed(id, reason: reason, on: connection) }
            if !followUps.isEmpty { try JobClient.enqueue(followUps, in: connection) }
        }
        var result = BookEnrichResult()
        for (_, outcome) in stored {
            switch outcome {
            case let .enriched(found):
                result.enriched += 1
                if found.coverPath != nil { result.covers += 1 }
                if let problem = found.coverProblem { result.coverProblems.append(problem) }
            case .unmatched: result.unmatched += 1
            case .notFound: result.notFound += 1
            }
        }
        result.failed = failures.count
        result.requests = requests.total
        result.followUps = followUps.count
        return result
    }

    /// The parts a service held back for an outcome.
    static func pending(_ outcome: BookEnricher.Outcome) -> Set<Part> {
        switch outcome {
        case let .enriched(found): found.pending
        case let .notFound(pending): pending
        case .unmatched: []
        }
    }
}

/// What one enrich job did.
public struct BookEnrichResult: Codable, Sendable, Equatable {
    public var enriched = 0
    /// Rows matched below the threshold: their books keep the reader's fields and wait on the review list.
    public var unmatched = 0
    public var notFound = 0
    public var failed = 0
    public var covers = 0
    public var coverProblems: [String] = []
    /// Requests that went out (cache hits excluded).
    public var requests = 0
    /// Follow-up jobs enqueued for parts a service held back.
    public var followUps = 0
}
