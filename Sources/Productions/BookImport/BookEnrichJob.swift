import BookCatalog
import Foundation
import RepartoRuntime
import Postgres

/// The enrich stage of a book import: one job per N books (fan-out) asks the book services about
/// each and stores what they say in its completion transaction.
///
/// A 429 or 503 makes the whole job "retry at" the instant the service names (answers already
/// received are in the cache, so the next attempt asks only what is left); other failures retry
/// with backoff, and on the job's last attempt the books still failing are recorded as `failed`
/// so the rest of the job's books keep their answers; a fault no retry cures (a malformed answer
/// counts as curable) fails its book at once. A cover that is too large or refused for good
/// leaves its book enriched without a cover; Google Books refusing for good (a 4xx) leaves Open
/// Library's answer alone.
public struct BookEnrichJob: JobParameters {
    public static let kind = "book-import.enrich"
    public static let queue = "books"
    /// Limits apply per service; Open Library is asked first for every book.
    public static let defaultLimit = "books:openlibrary"

    /// The books to enrich: one to ``maximumBooks``.
    public var bookIDs: [UUID]

    /// The most books one job may carry (an import puts at most 100 in each).
    public static let maximumBooks = 1_000

    public init(bookIDs: [UUID]) { self.bookIDs = bookIDs }

    private enum CodingKeys: String, CodingKey {
        case bookIDs
    }

    /// Refuses no or more than ``maximumBooks`` books (``JobError/invalidParameter(kind:field:reason:)``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bookIDs = try container.decode([UUID].self, forKey: .bookIDs, count: 1...Self.maximumBooks)
    }

    public var limitKey: String? { Self.defaultLimit }

    public static func register(in registry: JobRegistry, assetsRoot: URL, postgres: PostgresClient,
                                settings: BookServiceSettings, timeout: Double = 600) {
        let enricher = BookEnricher(client: BookServiceClient(settings: settings, postgres: postgres), assetsRoot: assetsRoot)
        registry.register(BookEnrichJob.self, timeout: timeout) { parameters, context in
            try await run(parameters, context: context, enricher: enricher, postgres: postgres)
        }
    }

    static func run(_ parameters: BookEnrichJob, context: JobContext, enricher: BookEnricher,
                    postgres: PostgresClient) async throws -> BookEnrichResult {
        let ids = parameters.bookIDs
        let books = try await postgres.withConnection { try BookEnrichRows.books(ids, on: $0) }
        let lastAttempt = context.attempt >= context.maxAttempts
        var outcomes: [(UUID, BookEnricher.Outcome)] = []
        var failed: [(UUID, String)] = []
        var requests = 0
        for book in books {
            do {
                let (outcome, asked) = try await enricher.enrich(book)
                requests += asked
                outcomes.append((book.id, outcome))
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
        // The budget of the job's limit counts requests (estimated at one per book).
        context.reportCost(Double(requests))
        let stored = outcomes
        let failures = failed
        context.transactional { connection in
            for (id, outcome) in stored { try BookEnrichRows.store(id, outcome, on: connection) }
            for (id, reason) in failures { try BookEnrichRows.markFailed(id, reason: reason, on: connection) }
        }
        var result = BookEnrichResult()
        for (_, outcome) in stored {
            switch outcome {
            case let .enriched(_, cover, problem):
                result.enriched += 1
                if cover != nil { result.covers += 1 }
                if let problem { result.coverProblems.append(problem) }
            case .notFound: result.notFound += 1
            }
        }
        result.failed = failures.count
        result.requests = requests
        return result
    }
}

/// What one enrich job did.
public struct BookEnrichResult: Codable, Sendable, Equatable {
    public var enriched = 0
    public var notFound = 0
    public var failed = 0
    public var covers = 0
    public var coverProblems: [String] = []
    /// Requests that went out (cache hits excluded).
    public var requests = 0
}
