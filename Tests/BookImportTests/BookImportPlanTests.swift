import Foundation
import RepartoRuntime
import Testing
@testable import BookImport

@Suite("Book import plan and service errors", .timeLimit(.minutes(1)))
struct BookImportPlanTests {
    @Test func batchesCoverEveryBookOnceInOrder() {
        let ids = (0..<23).map { _ in UUID() }
        let batches = BookImportPlan.batches(ids, size: 10)
        #expect(batches.map(\.count) == [10, 10, 3])
        #expect(batches.flatMap { $0 } == ids)
        #expect(BookImportPlan.batches([], size: 10).isEmpty)
        #expect(BookImportPlan.batches(ids, size: 0).count == 23) // a size below 1 is 1
    }

    @Test func rateLimitsBecomeRetryAtAndOtherFaultsRetryOrNot() throws {
        let before = Date()
        let limited = BookServiceError.rateLimited(service: "openlibrary", status: 429, retryAfter: 30)
        let at = try #require(limited.retryAt)
        #expect(at >= before.addingTimeInterval(30) && at <= Date().addingTimeInterval(30))
        let unsaid = try #require(BookServiceError.rateLimited(service: "openlibrary", status: 503, retryAfter: nil).retryAt)
        #expect(unsaid >= before.addingTimeInterval(BookServiceError.defaultRetryAfter))
        #expect(BookServiceError.serverError(service: "openlibrary", status: 502).retryAt == nil)
        #expect(BookServiceError.serverError(service: "openlibrary", status: 502).isRetryable)
        #expect(BookServiceError.truncated(service: "openlibrary", expected: 10, received: 3).isRetryable)
        #expect(!BookServiceError.rejected(service: "google-books", status: 400).isRetryable)
        #expect(!BookServiceError.tooLarge(service: "covers", limit: 5).isRetryable)
    }

    @Test func enrichJobsRunUnderTheOpenLibraryLimit() {
        #expect(BookEnrichJob(bookIDs: []).limitKey == "books:openlibrary")
        #expect(BookEnrichJob.queue == BookParseJob.queue)
        // A follow-up of one part runs under that part's service's limit.
        #expect(BookEnrichJob(bookIDs: [], parts: [.cover]).limitKey == "books:openlibrary-covers")
        #expect(BookEnrichJob(bookIDs: [], parts: [.googleBooks]).limitKey == "books:google-books")
        #expect(BookEnrichJob(bookIDs: [], parts: [.cover, .googleBooks]).limitKey == "books:openlibrary")
    }

    @Test func thePublicOpenLibraryGetsAPoliteDefaultLimitAndAMirrorNone() {
        let polite = BookServiceSettings().politeLimit
        // Open Library's 1 request a second, as requests a minute; two jobs asking at once.
        #expect(polite == LimitSpec(name: "books:openlibrary", concurrency: 2, budget: 60, budgetWindow: 60))
        #expect(BookServiceSettings(openLibraryURL: "https://openlibrary.org/").politeLimit == polite)
        #expect(BookServiceSettings(openLibraryURL: "http://127.0.0.1:8080").politeLimit == nil)
    }

    @Test func settingsTrimSlashesAndKeepTheKeyOutOfURLs() {
        let settings = BookServiceSettings(openLibraryURL: "http://mirror.example/", googleBooksURL: "http://g.example//")
        #expect(settings.openLibraryURL == "http://mirror.example")
        #expect(settings.googleBooksURL == "http://g.example")
        #expect(settings.isbnTTL == 7 * 86_400)
        #expect(settings.searchTTL == 6 * 3_600)
        #expect(BookEnricher.escape("Cien años & más") == "Cien%20a%C3%B1os%20%26%20m%C3%A1s")
    }
}
