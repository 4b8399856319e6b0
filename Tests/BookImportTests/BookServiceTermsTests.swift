import BookCatalog
import Foundation
import RepartoConfiguration
import RepartoRuntime
import Testing
@testable import BookImport

/// The services' terms as the import reads them (no server): Open Library's limits as default
/// limits, the contact in the User-Agent, what a "slow down" is (a 429 or 503, a 403 from the
/// covers service, Google's quota errors) and for how long, covers by id.
@Suite(.timeLimit(.minutes(1)))
struct BookServiceTermsTests {
    @Test func thePublicOpenLibrarysLimitsAreTheDefaults() throws {
        let settings = BookServiceSettings()
        #expect(settings.asksPublicOpenLibrary)
        #expect(settings.defaultLimits == [
            LimitSpec(name: "books:openlibrary", concurrency: 2, budget: 60, budgetWindow: 60),
            LimitSpec(name: "books:openlibrary-covers", concurrency: 1, budget: 100, budgetWindow: 300),
        ])
        #expect(settings.politeLimit == settings.defaultLimits.first)
        // 1 request a second, spaced by the pacer (its slack included).
        #expect(abs((BookServicePacer.interval(settings.politeLimit) ?? 0) - 1.015) < 1e-9)
        #expect(abs((BookServicePacer.interval(settings.defaultLimits.last) ?? 0) - 3.035) < 1e-9)
        #expect(BookServicePacer.interval(LimitSpec(name: "x", concurrency: 1)) == nil)
        #expect(BookServicePacer.interval(nil) == nil)
        // A mirror or a stand-in sets its own terms.
        let mirror = BookServiceSettings(openLibraryURL: "http://127.0.0.1:8080/")
        #expect(mirror.defaultLimits.isEmpty && mirror.politeLimit == nil)
        #expect(mirror.openLibraryCoversURL == "http://127.0.0.1:8080")
        #expect(settings.openLibraryCoversURL == "https://covers.openlibrary.org")
    }

    @Test func aContactGoesIntoTheUserAgentAndAllowsThreeRequestsASecond() throws {
        let configuration = ConfigurationValues(environment: [BookServiceSettings.contactVariable: "ops@example.org"])
        let settings = try BookServiceSettings(configuration: configuration)
        #expect(settings.contact == "ops@example.org")
        #expect(settings.userAgent == "Reparto/1 (book catalog import; +https://github.com/reparto; ops@example.org)")
        #expect(settings.politeLimit?.budget == 180)
        #expect(abs((BookServicePacer.interval(settings.politeLimit) ?? 0) - (1.0 / 3 * 1.01 + 0.005)) < 1e-9)
        #expect(BookServiceSettings.isDefault(settings.politeLimit!) && BookServiceSettings.isDefault(BookServiceSettings().politeLimit!))
        #expect(!BookServiceSettings.isDefault(LimitSpec(name: "books:openlibrary", rate: 1)))
        // No header injection, no unbalanced parentheses; nothing left is no contact.
        let hostile = BookServiceSettings(contact: "ops@example.org)\r\nX-Evil: 1 (")
        #expect(hostile.userAgent == "Reparto/1 (book catalog import; +https://github.com/reparto; ops@example.orgX-Evil: 1)")
        #expect(BookServiceSettings(contact: " \n() ").contact == nil)
        #expect(BookServiceSettings(contact: " \n() ").userAgent == BookServiceSettings.product)
        #expect(BookServiceSettings(userAgent: "Other/2", contact: "a@b.c").userAgent == "Other/2 (a@b.c)")
    }

    static let googleDaily = Array("""
        {"error": {"code": 403, "message": "Daily Limit Exceeded",
         "errors": [{"message": "Daily Limit Exceeded", "domain": "usageLimits", "reason": "dailyLimitExceeded"}]}}
        """.utf8)
    static let googleRate = Array("""
        {"error": {"code": 429, "message": "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user' of service 'books.googleapis.com'",
         "errors": [{"message": "Quota exceeded", "domain": "global", "reason": "rateLimitExceeded"}], "status": "RESOURCE_EXHAUSTED"}}
        """.utf8)
    static let googlePerDay = Array("""
        {"error": {"code": 429, "message": "Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service 'books.googleapis.com'",
         "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "RATE_LIMIT_EXCEEDED"}]}}
        """.utf8)
    static let googleKey = Array("""
        {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
         "errors": [{"message": "API key not valid.", "domain": "global", "reason": "badRequest"}], "status": "INVALID_ARGUMENT"}}
        """.utf8)
    static let googleForbidden = Array("""
        {"error": {"code": 403, "message": "The request is missing a valid API key.",
         "errors": [{"message": "forbidden", "domain": "global", "reason": "forbidden"}], "status": "PERMISSION_DENIED"}}
        """.utf8)

    @Test func googleNamesItsQuotasInItsErrorBody() {
        #expect(GoogleBooksResponse.quotaError(Self.googleDaily) == .init(reason: "dailyLimitExceeded", daily: true, message: "Daily Limit Exceeded"))
        #expect(GoogleBooksResponse.quotaError(Self.googleRate)?.daily == false)
        #expect(GoogleBooksResponse.quotaError(Self.googleRate)?.reason == "rateLimitExceeded")
        #expect(GoogleBooksResponse.quotaError(Self.googlePerDay)?.daily == true)
        #expect(GoogleBooksResponse.quotaError(Array(#"{"error": {"errors": [{"reason": "quotaExceeded"}]}}"#.utf8))?.reason == "quotaExceeded")
        #expect(GoogleBooksResponse.quotaError(Self.googleKey) == nil)
        #expect(GoogleBooksResponse.quotaError(Self.googleForbidden) == nil)
        #expect(GoogleBooksResponse.quotaError(Array("<html>busy</html>".utf8)) == nil)
        #expect(GoogleBooksResponse.quotaError([]) == nil)
    }

    @Test func aSlowDownIsTheServicesToSayAndLastsAsLongAsItSays() throws {
        let slow = { (status: Int, service: String, after: Double?, body: [UInt8]) in
            BookServiceClient.slowDown(status: status, service: service, retryAfter: after, body: body)?.seconds
        }
        // Any service's 429 and 503; Open Library's own 403 is a refusal.
        #expect(slow(429, "openlibrary", 7, []) == 7)
        #expect(slow(429, "openlibrary", nil, []) == BookServiceError.defaultRetryAfter)
        #expect(slow(503, "openlibrary", nil, []) == BookServiceError.defaultRetryAfter)
        #expect(slow(403, "openlibrary", nil, []) == nil)
        // The covers service answers 403 past its limit on ISBN look-ups: 5 minutes unless told.
        #expect(slow(403, "covers", nil, Array("<html>Forbidden</html>".utf8)) == 300)
        #expect(slow(403, "covers", 20, []) == 20)
        // Google: a quota, per minute or per day; a key refused is not one.
        #expect(slow(403, "google-books", nil, Self.googleRate) == 60)
        #expect(slow(429, "google-books", 5, Self.googleRate) == 5)
        #expect(slow(403, "google-books", nil, Self.googleKey) == nil)
        #expect(slow(403, "google-books", nil, Self.googleForbidden) == nil)
        #expect(slow(429, "google-books", nil, []) == 60)
        let noon = try #require(ISO8601DateFormatter().date(from: "2026-03-10T20:00:00Z"))  // 13:00 in Los Angeles (PDT)
        let daily = BookServiceClient.slowDown(status: 403, service: "google-books", retryAfter: nil, body: Self.googleDaily, now: noon)
        #expect(abs((daily?.seconds ?? 0) - 11 * 3600) < 0.01)
        #expect(daily?.reason == "daily quota (dailyLimitExceeded)")
        #expect(BookServiceClient.secondsUntilPacificMidnight(after: noon.addingTimeInterval(11 * 3600 - 1)) == 60, "a minute at least")
        // Held back or rate-limited, the error says when to come back.
        let held = BookServiceError.held(service: "covers", until: Date().addingTimeInterval(90), reason: "HTTP 403: covers refused")
        #expect(held.isRetryable && held.retryAt != nil)
        #expect(held.description.hasPrefix("covers: held back for 9") && held.description.hasSuffix(" s (HTTP 403: covers refused)"))
        #expect(BookServiceError.seconds(3 * 3600) == "3 h" && BookServiceError.seconds(600) == "10 min" && BookServiceError.seconds(.infinity) == "a long time")
    }

    @Test func coversAreFetchedByTheirIdWhereOneIsKnown() {
        #expect(OpenLibraryResponse.coverID(in: "https://covers.openlibrary.org/b/id/8231856-L.jpg") == 8_231_856)
        #expect(OpenLibraryResponse.coverID(in: "http://127.0.0.1:9/b/id/12.jpg") == 12)
        #expect(OpenLibraryResponse.coverID(in: "https://covers.openlibrary.org/b/isbn/9780441172719-L.jpg") == nil)
        #expect(OpenLibraryResponse.coverID(in: "https://covers.openlibrary.org/b/id/-1-L.jpg") == nil)
        #expect(OpenLibraryResponse.coverID(in: "https://covers.openlibrary.org/b/id/12x-L.jpg") == nil)
        #expect(OpenLibraryResponse.isKeyedCover("https://covers.openlibrary.org/b/isbn/9780441172719-L.jpg"))
        #expect(OpenLibraryResponse.isKeyedCover("https://covers.openlibrary.org/b/OLID/OL1M-L.jpg"))
        #expect(!OpenLibraryResponse.isKeyedCover("https://covers.openlibrary.org/b/id/1-L.jpg"))
        #expect(BookServiceClient.isCoverByID("https://covers.openlibrary.org/b/id/1-L.jpg"))
        #expect(!BookServiceClient.isCoverByID("https://covers.openlibrary.org/b/isbn/9780441172719-L.jpg"))
        #expect(!BookServiceClient.isCoverByID("http://books.google.com/books/content?id=x"))

        let mirror = BookServiceSettings(openLibraryURL: "http://127.0.0.1:8080")
        // A cover id (a search's `cover_i`) is fetched from the configured covers host.
        #expect(BookCoverFetcher.source(id: 42, url: nil, settings: BookServiceSettings()) == "https://covers.openlibrary.org/b/id/42-L.jpg")
        #expect(BookCoverFetcher.source(id: 42, url: nil, settings: mirror) == "http://127.0.0.1:8080/b/id/42-L.jpg")
        // A URL that names an id is fetched by it, on the configured host; another is fetched as named.
        #expect(BookCoverFetcher.source(id: nil, url: "https://covers.openlibrary.org/b/id/7-M.jpg", settings: mirror)
                == "http://127.0.0.1:8080/b/id/7-L.jpg")
        #expect(BookCoverFetcher.source(id: nil, url: "http://books.google.com/books/content?id=x", settings: mirror)
                == "http://books.google.com/books/content?id=x")
        #expect(BookCoverFetcher.source(id: nil, url: nil, settings: mirror) == nil)
        // An edition record's `covers` (jscmd=details, /isbn/….json) names its cover by id too.
        let edition = try? OpenLibraryResponse.edition(Array(#"{"ISBN:9780441172719": {"title": "Dune", "covers": [-1, 11481354]}}"#.utf8),
                                                       isbn13: "9780441172719")
        #expect(edition?.coverURL == "https://covers.openlibrary.org/b/id/11481354-L.jpg", "the first id that is one (-1: none)")
        let none = try? OpenLibraryResponse.edition(Array(#"{"ISBN:9780441172719": {"title": "Dune", "covers": [-1]}}"#.utf8),
                                                    isbn13: "9780441172719")
        #expect(none?.coverURL == nil)
    }

    @Test func anISBNsEditionByOtherAuthorsIsNotTheRowsBook() {
        let book = BookEnricher.Book(id: UUID(), isbn13: "9780441172719", title: "Dune", authors: ["Frank Herbert"])
        #expect(!BookEnricher.authorsDisagree(book, BookCandidate(title: "Dune", authors: ["Frank Herbert"])))
        #expect(!BookEnricher.authorsDisagree(book, BookCandidate(title: "Dune", authors: ["Herbert, Frank"])))
        #expect(!BookEnricher.authorsDisagree(book, BookCandidate(title: "Der Wüstenplanet", authors: ["F. Herbert"])))
        #expect(!BookEnricher.authorsDisagree(book, BookCandidate(title: "Dune", authors: [])), "unknown is not disagreeing")
        #expect(BookEnricher.authorsDisagree(book, BookCandidate(title: "Dune", authors: ["Brian Herbert"])))
        #expect(BookEnricher.authorsDisagree(book, BookCandidate(title: "Emma", authors: ["Jane Austen"])))
        let two = BookEnricher.Book(id: UUID(), title: "Good Omens", authors: ["Terry Pratchett", "Neil Gaiman"])
        #expect(two.authorsRead == "Terry Pratchett; Neil Gaiman")
        #expect(!BookEnricher.authorsDisagree(two, BookCandidate(title: "Good Omens", authors: ["Neil Gaiman"])))
    }

    @Test func theCachesPolicyIsReadFromItsVariables() throws {
        #expect(try HTTPCachePolicy(configuration: ConfigurationValues(environment: [:])) == .standard)
        #expect(HTTPCachePolicy.standard == HTTPCachePolicy(maxAge: 30 * 86_400, maxBytes: 256 << 20))
        let set = try HTTPCachePolicy(configuration: ConfigurationValues(environment: [
            HTTPCachePolicy.maxAgeVariable: "7d12h", HTTPCachePolicy.maxBytesVariable: "1.5GB",
        ]))
        #expect(set == HTTPCachePolicy(maxAge: 7.5 * 86_400, maxBytes: Int64(1.5 * Double(1 << 30))))
        let none = try HTTPCachePolicy(configuration: ConfigurationValues(environment: [
            HTTPCachePolicy.maxAgeVariable: "never", HTTPCachePolicy.maxBytesVariable: "none",
        ]))
        #expect(none.maxAge == .infinity && none.maxBytes == nil)
        #expect(throws: RetentionError.self) {
            try HTTPCachePolicy(configuration: ConfigurationValues(environment: [HTTPCachePolicy.maxBytesVariable: "-3MB"]))
        }
        #expect(throws: RetentionError.self) {
            try HTTPCachePolicy(configuration: ConfigurationValues(environment: [HTTPCachePolicy.maxAgeVariable: "soon"]))
        }
        #expect(try HTTPCachePruneJob.cadence(every: nil) == ScheduleCadence.every("1h"))
        #expect(try HTTPCachePruneJob.cadence(every: " Never ") == nil)
        #expect(throws: ScheduleError.self) { try HTTPCachePruneJob.cadence(every: "often") }
    }
}
