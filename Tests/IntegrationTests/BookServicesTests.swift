import BookCatalog
@testable import BookImport
import Foundation
import Postgres
import RepartoConfiguration
import RepartoRuntime
import RepartoTestSupport
import Testing

/// Asking the book services within their terms, against stand-ins that keep them (their limits
/// made faster): requests spaced by the default limits, searches that ask `fields=` for what
/// they read, matches scored and sent to review instead of taking the wrong book, covers fetched
/// by id and held back (not failed) on a 403, Google Books' quota errors, the cache's pruning.
@Suite("book services", .serialized, .timeLimit(.minutes(5)))
struct BookServicesTests {
    /// A Goodreads export of `rows` (title, author, ISBN-13 or "").
    static func goodreads(_ rows: [(String, String, String)]) -> String {
        let header = "Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,Binding,"
            + "Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,Bookshelves with positions,"
            + "Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies"
        let lines = rows.enumerated().map { index, row in
            "\(index + 1),\"\(row.0)\",\"\(row.1)\",,,\"=\"\"\"\"\",\"=\"\"\(row.2)\"\"\",0,4.0,,,,,,,2024/01/01,,,read,,,,1,0"
        }
        return ([header] + lines).joined(separator: "\n") + "\n"
    }

    static func isbn(_ n: Int) -> String {
        let body = "978" + String(format: "%09d", n)
        let sum = body.compactMap(\.wholeNumberValue).enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
        return body + String((10 - sum % 10) % 10)
    }

    /// Under the default limits (made 10 times faster here) every book of an import is enriched
    /// with one answered request and its cover by id, however many jobs ask at once; without the
    /// limit the stand-in refuses, and the refused books are still enriched.
    @Test func underTheDefaultLimitsEveryBookIsEnrichedWithOneAnsweredRequest() async throws {
        let speedup = 10.0
        let isbns = (0..<24).map { Self.isbn(500_000 + $0) }
        let editions = Dictionary(uniqueKeysWithValues: isbns.enumerated().map { index, isbn in
            (isbn, BookServicesStandIn.Edition(title: "Book \(index)", authors: ["Pat Example"], coverID: 7_000 + index))
        })
        let standIn = BookServicesStandIn(rate: speedup, editions: editions)
        let catalog = try await BookImportTests.Catalog.start(openLibrary: standIn.reply, worker: false)
        let cluster = catalog.cluster
        for spec in BookServiceSettings.openLibraryLimits(contact: false, speedup: speedup) { try await cluster.client.setLimit(spec) }
        let workers = [cluster.startWorker(registry: catalog.registry, concurrency: 4, prefetch: 8),
                       cluster.startWorker(registry: catalog.registry, concurrency: 4, prefetch: 8)]
        let file = try catalog.write(Self.goodreads(isbns.enumerated().map { ("Book \($0)", "Pat Example", $1) }), "limited.csv")
        let results = try await catalog.importFile(file, .init(booksPerJob: 3))
        #expect(results.state == "completed")
        #expect(results.enrichment == BookEnrichmentCounts(enriched: 24, covers: 24))
        // One answered edition request a book. How far apart they came is the bench's to measure
        // (reparto bench import); a machine under load may bring two closer than the stand-in
        // allows, and a refusal is retried at its Retry-After, never a failed book.
        let api = standIn.api
        #expect(api.filter { $0.status == 200 }.count == 24, "one answered request a book")
        #expect(api.allSatisfy { $0.status == 200 || $0.status == 429 })
        // Each book's cover by its id, once, none refused (covers by id are not limited): a job
        // attempt that ended early (a refusal's "retry at") asked its books again, but a cover it
        // had stored comes from the cache.
        #expect(standIn.coverPaths.sorted() == (0..<24).map { "/b/id/\(7_000 + $0)-L.jpg" }.sorted(), "\(standIn.coverPaths)")
        #expect(standIn.covers.allSatisfy { $0 == 200 })

        // Without a limit (a cluster of its own) the jobs ask faster than the stand-in allows: it
        // refuses, the jobs retry at its Retry-After, and every book is enriched all the same.
        let others = (0..<8).map { Self.isbn(600_000 + $0) }
        let fast = BookServicesStandIn(rate: 2, editions: Dictionary(uniqueKeysWithValues: others.map {
            ($0, BookServicesStandIn.Edition(title: "Other", authors: ["Pat Example"]))
        }))
        let unlimited = try await BookImportTests.Catalog.start(openLibrary: fast.reply)
        let refused = try await unlimited.importFile(try unlimited.write(Self.goodreads(others.map { ("Other \($0)", "Pat Example", $0) }),
                                                                        "fast.csv"), .init(booksPerJob: 1))
        #expect(refused.enrichment?.enriched == 8)
        #expect(fast.api.contains { $0.status == 429 }, "the stand-in refuses requests closer than half a second")
        try await unlimited.stop()
        for worker in workers { try await worker.stop() }
        try await catalog.stop()
    }

    static let bodyRoad = BookServicesStandIn.Work(key: "/works/OL81W", title: "The Amber Harbor", authors: ["Mara Quillon"], year: 1971,
                                                   coverID: 81_001, isbn: "9780140439748", subjects: ["Harbors", "Fiction"])
    static let namesake = BookServicesStandIn.Work(key: "/works/OL82W", title: "The Silent Orchard", authors: ["Harriet Barrowe"], year: 2004,
                                                   coverID: 82_001, isbn: "9780441013593")
    static let sequel = BookServicesStandIn.Work(key: "/works/OL83W", title: "The Amber Harbor: The Return", authors: ["Mara Quillon"],
                                                 year: 1980, coverID: 83_001, isbn: "9780399128967")
    static let plain = BookServicesStandIn.Work(key: "/works/OL84W", title: "Winter", authors: ["Ilse Dunmore"], year: 1999,
                                                coverID: 84_001, isbn: "9780441172719")

    /// Rows without ISBN: a search that asks for every field it reads; a match at or above the
    /// threshold taken with its score, evidence and details; a title by another author, a title
    /// without an author, and an ISBN whose edition is by another author kept as the reader wrote
    /// them, unmatched, each with an item on the review list about that book. Accepting a
    /// candidate applies it to that book (its cover fetched by id); keeping closes the item.
    @Test func matchesBelowTheThresholdKeepTheReadersFieldsAndGoToReview() async throws {
        let standIn = BookServicesStandIn(rate: 1000, works: [Self.sequel, Self.bodyRoad, Self.namesake, Self.plain],
                                          editions: ["9780060883287": .init(title: "Cien años de soledad", authors: ["Someone Else"])])
        let catalog = try await BookImportTests.Catalog.start(openLibrary: standIn.reply)
        let cluster = catalog.cluster
        let file = try catalog.write(Self.goodreads([
            ("The Amber Harbor (Harbor Cycle, #1)", "Mara Quillon", ""),  // the true book, after its sequel
            ("The Silent Orchard", "Mara Barrowe", ""),                    // only the author's namesake has this title
            ("Winter", "", ""),                                            // no author to compare
            ("Cien años de soledad", "Gabriel García Márquez", "9780060883287"),  // an ISBN of another author's edition
        ]), "rows.csv")
        let results = try await catalog.importFile(file)
        #expect(results.state == "completed")
        #expect(results.enrichment == BookEnrichmentCounts(enriched: 1, covers: 1, unmatched: 3))
        // Every search asked for every field the import reads.
        let searches = catalog.openLibrary.requests.filter { $0.path == "/search.json" }
        #expect(searches.count == 3)
        for search in searches {
            let asked = OpenLibraryStandIn.fields(search.query) ?? []
            #expect(Set(OpenLibraryResponse.searchFields).isSubset(of: asked), "\(search.query)")
        }

        let harbor = try #require(try await catalog.books.books(search: "Amber Harbor").first)
        #expect(harbor.enrichStatus == "enriched")
        #expect(harbor.title == "The Amber Harbor (Harbor Cycle, #1)", "the reader's title stays")
        #expect(harbor.matchScore == 1)
        #expect(!harbor.matchEvidence.isEmpty)
        #expect(harbor.publishers == ["Harvill Press"] && harbor.pageCount == 288 && harbor.subjects == ["Harbors", "Fiction"],
                "the fields asked for came back")
        #expect(harbor.coverPath != nil)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM books WHERE identifiers->'openlibrary_work' = '[\"OL81W\"]'") == 1)
        #expect(standIn.covers.count == 1, "the cover fetched by its id")

        let orchard = try #require(try await catalog.books.books(search: "Silent Orchard").first)
        #expect(orchard.enrichStatus == "unmatched")
        #expect(orchard.authors == ["Mara Barrowe"] && orchard.publishers.isEmpty && orchard.coverPath == nil, "never the namesake's")
        #expect((orchard.matchScore ?? 1) <= 0.5)
        let winter = try #require(try await catalog.books.books(search: "Winter").first)
        #expect(winter.enrichStatus == "unmatched" && winter.authors.isEmpty, "a title alone takes no author")
        let cien = try #require(try await catalog.books.book("9780060883287")).book
        #expect(cien.enrichStatus == "unmatched" && cien.authors == ["Gabriel García Márquez"])

        let reviews = BookReviewClient(postgres: cluster.postgres, enrichAdded: true)
        let open = try await reviews.list()
        #expect(open.count == 3)
        #expect(open.allSatisfy { $0.source == "book-import" && $0.productionID == results.productionID })
        let orchardItem = try #require(open.first { $0.existingBookID == orchard.id })
        #expect(orchardItem.reference.hasSuffix(", line 3") && orchardItem.reference.hasPrefix("in-"), "\(orchardItem.reference)")
        #expect(orchardItem.candidates.first?.candidate.openLibraryKey == Self.namesake.key)
        let winterItem = try #require(open.first { $0.existingBookID == winter.id })
        let cienItem = try #require(open.first { $0.existingBookID == cien.id })
        #expect(cienItem.candidates.first?.evidence.first?.contains("ISBN-13 9780060883287") == true)

        // Accepting the namesake's book for the orchard row: applied to that book, none added.
        let books = try await cluster.count("SELECT count(*)::int AS n FROM books")
        let accepted = try await reviews.accept(orchardItem.id, candidate: 0, asRead: false)
        #expect(accepted.state == "accepted" && accepted.bookID == orchard.id)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM books") == books)
        try await cluster.wait(for: "the accepted candidate's cover, fetched by id") {
            try await catalog.books.book(orchard.id.uuidString)?.book.coverPath != nil
        }
        let applied = try #require(try await catalog.books.book(orchard.id.uuidString)).book
        #expect(applied.enrichStatus == "enriched" && applied.title == "The Silent Orchard" && applied.publishYear == 2004)
        #expect(applied.authors == ["Mara Barrowe"], "the reader's authors stay")
        #expect(applied.matchEvidence.last == "accepted by a person" && applied.enrichPending.isEmpty)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE limit_key = $1", [BookServiceSettings.coversLimit]) == 1)

        // Keeping: closed, nothing changed; the CLI's keep, and accept --as-read on such an item.
        let kept = try await reviews.keep(winterItem.id)
        #expect(kept.state == "kept" && kept.bookID == winter.id)
        #expect(try await catalog.books.book(winter.id.uuidString)?.book.enrichStatus == "unmatched")
        await #expect(throws: BookReviewError.decided(winterItem.id, state: "kept")) { try await reviews.keep(winterItem.id) }
        let environment = try cluster.processEnvironment()
        let asRead = try await RepartoProcess.run(["books", "review", "accept", String(cienItem.id.uuidString.prefix(8)), "--as-read"],
                                                  environment: environment)
        #expect(asRead.status == 0, "\(asRead.stderr)")
        #expect(asRead.stdout == "kept \(cienItem.id.uuidString.lowercased().prefix(8)) (\(cienItem.reference): Cien años de soledad / "
                + "Gabriel García Márquez): catalog book \(cien.id.uuidString.lowercased()) left as it is\n")
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM books") == books)
        #expect(try await reviews.list().isEmpty)

        // A spine (no catalog book yet) cannot be kept: one line.
        let spine = try await cluster.postgres.withTransaction { connection in
            try BookReviews.open(source: "bookshelf-scan", productionID: nil, reference: "photo 1, spine 1", title: "Dune", author: nil,
                                 candidates: [], on: connection)
        }
        let keepSpine = try await RepartoProcess.run(["books", "review", "keep", spine.uuidString], environment: environment)
        #expect(keepSpine.status != 0)
        #expect(keepSpine.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
                == "Error: review \(spine.uuidString.lowercased().prefix(8)) is no catalog book yet: accept it (a candidate or --as-read) or reject it")
        try await catalog.stop()
    }

    /// A job's books are stored when it completes: an attempt that failed on one cover (a 500)
    /// leaves nothing in `books`, and the retry asks its books again. The cover it had stored
    /// is not downloaded twice; one whose file left the volume is.
    @Test func aRetriedEnrichmentDownloadsNoCoverItStoredAlready() async throws {
        let isbns = (0..<3).map { Self.isbn(710_000 + $0) }
        let standIn = BookServicesStandIn(rate: 1000, editions: Dictionary(uniqueKeysWithValues: isbns.enumerated().map {
            ($1, BookServicesStandIn.Edition(title: "Again \($0)", authors: ["Pat Example"], coverID: 9_200 + $0))
        }))
        standIn.failCovers(with: [.respond(status: 200, headers: [("Content-Type", "image/jpeg")], body: OpenLibraryStandIn.jpeg + Data("first".utf8)),
                                  .respond(status: 500, headers: [("Content-Type", "text/html")], body: Data("<html>oops</html>".utf8))])
        let catalog = try await BookImportTests.Catalog.start(openLibrary: standIn.reply)
        let file = try catalog.write(Self.goodreads(isbns.enumerated().map { ("Again \($0)", "Pat Example", $1) }), "again.csv")
        let results = try await catalog.importFile(file, .init(booksPerJob: 3))
        #expect(results.state == "completed")
        #expect(results.enrichment == BookEnrichmentCounts(enriched: 3, covers: 3))
        #expect(try await catalog.cluster.count("SELECT max(attempts)::int AS n FROM all_jobs WHERE kind = $1", [BookEnrichJob.kind]) == 2)
        let requests = Dictionary(grouping: standIn.coverPaths, by: { $0 }).mapValues(\.count)
        #expect(requests.count == 3 && requests.values.sorted() == [1, 1, 2],
                "the 500's cover twice, every other once: \(standIn.coverPaths)")

        // The cache points at a file: gone from the volume, the cover is downloaded again.
        let settings = BookServiceSettings(openLibraryURL: catalog.openLibrary.baseURL, googleBooksURL: "http://127.0.0.1:9",
                                           timeout: StandInTimeout.seconds)
        let fetcher = BookCoverFetcher(client: BookServiceClient(settings: settings, postgres: catalog.cluster.postgres),
                                       assetsRoot: catalog.root)
        let url = try #require(BookCoverFetcher.source(id: 9_201, url: nil, settings: settings))
        let cached = try await fetcher.fetch(url)
        guard case let .stored(path) = cached.outcome else { Issue.record("not stored: \(cached.outcome)"); return }
        #expect(!cached.sent, "from the cache")
        try FileManager.default.removeItem(at: catalog.root.appendingPathComponent(path))
        let fetched = try await fetcher.fetch(url)
        #expect(fetched.sent && fetched.outcome == .stored(path))
        #expect(standIn.coverPaths.count == 5)
        try await catalog.stop()
    }

    /// A 403 from the covers service is its rate limit: the books are enriched, their covers
    /// pending (no book failed, no job retried), and a follow-up job under the covers' limit
    /// fetches them when the hold ends.
    @Test func aCover403HoldsCoversBackWithoutFailingTheBook() async throws {
        let isbns = (0..<3).map { Self.isbn(700_000 + $0) }
        let standIn = BookServicesStandIn(rate: 1000, editions: Dictionary(uniqueKeysWithValues: isbns.enumerated().map {
            ($1, BookServicesStandIn.Edition(title: "Held \($0)", authors: ["Pat Example"], coverID: 9_100 + $0))
        }))
        standIn.failCovers(with: [.respond(status: 403, headers: [("Retry-After", "2"), ("Content-Type", "text/html")],
                                           body: Data("<html>Forbidden</html>".utf8))])
        let catalog = try await BookImportTests.Catalog.start(openLibrary: standIn.reply)
        let cluster = catalog.cluster
        let file = try catalog.write(Self.goodreads(isbns.enumerated().map { ("Held \($0)", "Pat Example", $1) }), "held.csv")
        let results = try await catalog.importFile(file, .init(booksPerJob: 3))
        #expect(results.state == "completed")
        #expect(results.enrichment == BookEnrichmentCounts(enriched: 3, coversPending: 3), "enriched, covers held back, none failed")
        #expect(standIn.covers == [403], "one refusal, then the lane is held: nothing more asked")
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE kind = $1 AND attempts > 1", [BookEnrichJob.kind]) == 0)
        let followUp = try #require(try await cluster.postgres.query("""
            SELECT limit_key, params::text AS parameters FROM jobs WHERE production_id IS NULL AND kind = $1
            """, [BookEnrichJob.kind]).first)
        #expect(followUp.string("limit_key") == BookServiceSettings.coversLimit)
        let parameters = try JSONDecoder().decode(BookEnrichJob.self, from: Data(try #require(followUp.string("parameters")).utf8))
        #expect(parameters.parts == [.cover] && parameters.bookIDs.count == 3)
        try await cluster.wait(timeout: 30, for: "the follow-up to fetch the covers after the hold") {
            try await cluster.count("SELECT count(*)::int AS n FROM books WHERE cover_path IS NOT NULL AND enrich_pending = '{}'") == 3
        }
        #expect(standIn.covers == [403, 200, 200, 200])
        let after = try #require(try await catalog.books.results(results.productionID))
        #expect(after.enrichment == BookEnrichmentCounts(enriched: 3, covers: 3))
        try await catalog.stop()
    }

    /// Google Books over its quota (403 `rateLimitExceeded`, 429 `RESOURCE_EXHAUSTED`): the book
    /// keeps Open Library's answer, Google is held back, and a follow-up fills the gaps later;
    /// a 403 that is not a quota (a key refused) is still refused for good.
    @Test func googleQuotaErrorsHoldGoogleBackAndAFollowUpFillsTheGaps() async throws {
        let quota = Data("""
            {"error": {"code": 403, "message": "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute'",
             "errors": [{"message": "Quota exceeded", "domain": "usageLimits", "reason": "rateLimitExceeded"}], "status": "PERMISSION_DENIED"}}
            """.utf8)
        let faults = Faults(replies: [.respond(status: 403, headers: [("Retry-After", "3"), ("Content-Type", "application/json")], body: quota)])
        let catalog = try await BookImportTests.Catalog.start(googleBooks: { request in
            if let fault = faults.next() { return fault }
            return GoogleBooksStandIn.reply(request)
        })
        let file = try catalog.write(Self.goodreads([("Dune", "Frank Herbert", "9780441172719")]), "google.csv")
        let results = try await catalog.importFile(file)
        #expect(results.enrichment == BookEnrichmentCounts(enriched: 1, covers: 1))
        let held = try #require(try await catalog.books.book("9780441172719")).book
        #expect(held.enrichPending == ["google-books"] && held.description == nil && held.pageCount == 612)
        try await catalog.cluster.wait(timeout: 30, for: "the Google Books follow-up") {
            try await catalog.books.book("9780441172719")?.book.enrichPending.isEmpty == true
        }
        let filled = try #require(try await catalog.books.book("9780441172719")).book
        #expect(filled.description == "A desert planet." && filled.pageCount == 612, "gaps filled, Open Library's answer kept")
        #expect(catalog.googleBooks?.requests.count == 2)
        try await catalog.stop()
    }

    /// The lanes' holds and spacing, and the default limits: created when absent, ours replaced
    /// when the contact changes, an operator's never.
    @Test func thePacerHoldsAndSpacesAndKeepsTheDefaultLimits() async throws {
        let cluster = try await TestCluster.make()
        let plain = BookServicePacer(postgres: cluster.postgres, defaults: BookServiceSettings.openLibraryLimits(contact: false))
        #expect(try await plain.limits()[BookServiceSettings.openLibraryLimit]?.budget == 60)
        #expect(Set(try await cluster.client.limits().map(\.spec.name)) == [BookServiceSettings.openLibraryLimit, BookServiceSettings.coversLimit])
        let contact = BookServicePacer(postgres: cluster.postgres, defaults: BookServiceSettings.openLibraryLimits(contact: true))
        #expect(try await contact.limits()[BookServiceSettings.openLibraryLimit]?.budget == 180)
        let operators = LimitSpec(name: BookServiceSettings.openLibraryLimit, concurrency: 1, budget: 30, budgetWindow: 60)
        try await cluster.client.setLimit(operators)
        _ = try await BookServicePacer(postgres: cluster.postgres, defaults: BookServiceSettings.openLibraryLimits(contact: false)).limits()
        #expect(try await cluster.client.limits().first { $0.spec.name == operators.name }?.spec == operators)

        // Spaced: ten requests of a 20/s limit take about half a second, whoever asks.
        try await cluster.client.setLimit(LimitSpec(name: BookServiceSettings.openLibraryLimit, budget: 1200, budgetWindow: 60))
        let fresh = BookServicePacer(postgres: cluster.postgres, defaults: [])
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10 { group.addTask { try await fresh.admit(.openLibrary) } }
            try await group.waitForAll()
        }
        #expect(ContinuousClock.now - start >= .milliseconds(9 * 50 * 98 / 100))
        // Held: nothing goes out until the hold ends, on any lane that is held.
        let until = try await fresh.hold(.covers, seconds: 2, reason: "HTTP 403: test")
        #expect(abs(until.timeIntervalSinceNow - 2) < 1)
        await #expect(throws: BookServiceError.self) { try await fresh.admit(.covers, spaced: false) }
        #expect(try await fresh.heldUntil(.covers) != nil)
        #expect(try await fresh.heldUntil(.googleBooks) == nil)
        try await fresh.admit(.googleBooks)
        // A queue longer than a job waits is "held", not a wait of minutes in the handler.
        try await cluster.client.setLimit(LimitSpec(name: BookServiceSettings.openLibraryLimit, budget: 1, budgetWindow: 3600))
        let slow = BookServicePacer(postgres: cluster.postgres, defaults: [])
        try await slow.admit(.openLibrary)
        await #expect(throws: BookServiceError.self) { try await slow.admit(.openLibrary) }
        await cluster.shutdown()
    }

    /// The cache is pruned by age and by size, oldest first; an import schedules the hourly prune.
    @Test func theCacheIsPrunedByAgeAndSizeAndAnImportSchedulesIt() async throws {
        let catalog = try await BookImportTests.Catalog.start(configuration: ConfigurationValues(environment: [
            HTTPCachePolicy.maxAgeVariable: "10d", HTTPCachePolicy.maxBytesVariable: "3KB",
        ]))
        let cluster = catalog.cluster
        _ = try await cluster.postgres.query("""
            INSERT INTO http_cache (cache_key, url, status, body, fetched_at, expires_at)
            SELECT 'k' || n, 'x', 200, convert_to(repeat('x', 1024), 'UTF8'), now() - make_interval(days => n), now() + interval '30 days'
            FROM generate_series(1, 12) n
            UNION ALL SELECT 'expired', 'x', 200, '{}'::bytea, now(), now() - interval '1 second'
            """)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM http_cache") == 13)
        let id = try await cluster.client.enqueue(HTTPCachePruneJob(dryRun: true))
        try await cluster.wait(for: "the dry run") { try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE id = $1 AND state = 'succeeded'", [id]) == 1 }
        let dry = try #require(try await cluster.postgres.query("SELECT result FROM jobs WHERE id = $1", [id]).first?.json("result", as: HTTPCachePruneReport.self))
        #expect(dry == HTTPCachePruneReport(expired: 4, evicted: 10, entries: 13, bytes: 12 * 1024 + 2, dryRun: true))
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM http_cache") == 13)
        let real = try await cluster.client.enqueue(HTTPCachePruneJob())
        try await cluster.wait(for: "the prune") { try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE id = $1 AND state = 'succeeded'", [real]) == 1 }
        // Expired and 10 days old or more go; of the nine left, the three newest fit in 3 KB.
        #expect(try await cluster.postgres.query("SELECT cache_key FROM http_cache ORDER BY fetched_at DESC").compactMap { $0.string("cache_key") }
                == ["k1", "k2", "k3"])
        #expect(try await cluster.postgres.query("SELECT result FROM jobs WHERE id = $1", [real]).first?.json("result", as: HTTPCachePruneReport.self)
                == HTTPCachePruneReport(expired: 4, evicted: 6, entries: 3, bytes: 3072))

        // The first import schedules the prune hourly; a coordinator's cadence is kept, `never` removes it.
        #expect(try await cluster.client.schedules().isEmpty)
        _ = try await catalog.importFile(BookImportTests.fixture("goodreads_library_export"))
        let schedule = try #require(try await cluster.client.schedules().first)
        #expect(schedule.name == HTTPCachePruneJob.scheduleName && schedule.definition.kind == HTTPCachePruneJob.kind)
        #expect(schedule.definition.cadence == (try ScheduleCadence.every("1h")))
        try await HTTPCachePruneJob.keepScheduled(try HTTPCachePruneJob.cadence(every: "30m"), client: cluster.client)
        _ = try await catalog.importFile(BookImportTests.fixture("goodreads_library_export"))
        #expect(try await cluster.client.schedules().map(\.definition.cadence) == [try ScheduleCadence.every("30m")])
        try await HTTPCachePruneJob.keepScheduled(try HTTPCachePruneJob.cadence(every: "never"), client: cluster.client)
        #expect(try await cluster.client.schedules().isEmpty)
        try await catalog.stop()
    }
}
