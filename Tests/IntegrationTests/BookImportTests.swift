import BookCatalog
import BookImport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import RepartoRuntime
import Operations
import RepartoConfiguration
import RepartoTestSupport
import TerminalText
import Testing

@Suite("book import", .serialized, .timeLimit(.minutes(5)))
struct BookImportTests {
    static func fixture(_ name: String) -> URL {
        TestEnvironment.repositoryRoot.appendingPathComponent("Tests/BookCatalogTests/Fixtures/\(name).csv")
    }

    /// A private cluster with a coordinator and a worker running the book import's kinds, asking
    /// an Open Library stand-in.
    struct Catalog {
        let cluster: TestCluster
        let root: URL
        let books: BookImportClient
        let services: [RunningService]
        let openLibrary: FakeHTTPServer
        let googleBooks: FakeHTTPServer?
        let registry: JobRegistry

        static func start(openLibrary handler: @escaping @Sendable (FakeHTTPServer.Request) -> FakeHTTPServer.Reply = OpenLibraryStandIn.reply,
                          googleBooks: (@Sendable (FakeHTTPServer.Request) -> FakeHTTPServer.Reply)? = nil,
                          worker startsWorker: Bool = true,
                          configuration: ConfigurationValues = ConfigurationValues(environment: [:]),
                          configure: (inout BookServiceSettings) -> Void = { _ in })
            async throws -> Catalog {
            let cluster = try await TestCluster.make()
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-books-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let openLibrary = try FakeHTTPServer(handler: handler)
            let google = try googleBooks.map { try FakeHTTPServer(handler: $0) }
            let registry = JobRegistry()
            var settings = BookServiceSettings(openLibraryURL: openLibrary.baseURL,
                                               googleBooksURL: google?.baseURL ?? "http://127.0.0.1:9",
                                               googleBooksKey: google == nil ? nil : Secret(GoogleBooksStandIn.key), timeout: StandInTimeout.seconds)
            configure(&settings)
            BookImportKinds.register(in: registry, assetsRoot: root, postgres: cluster.postgres, services: settings,
                                     configuration: configuration)
            let worker = startsWorker ? cluster.startWorker(registry: registry, concurrency: 2, prefetch: 4) : nil
            let coordinator = cluster.startCoordinator(plans: BookImportKinds.plans)
            return Catalog(cluster: cluster, root: root, books: BookImportClient(postgres: cluster.postgres, assetsRoot: root),
                           services: [worker, coordinator].compactMap { $0 }, openLibrary: openLibrary, googleBooks: google,
                           registry: registry)
        }

        /// Imports `file` and waits for the report.
        func importFile(_ file: URL, _ options: BookImportClient.Options = .init()) async throws -> BookImportResults {
            let id = try await books.submit(file: file, options: options)
            let progress = try await cluster.client.awaitProduction(id, timeout: 120)
            #expect(progress.isFinished)
            return try #require(try await books.results(id))
        }

        func write(_ text: String, _ name: String) throws -> URL {
            let url = root.appendingPathComponent("in-\(UUID().uuidString.prefix(6))-\(name)")
            try Data(text.utf8).write(to: url)
            return url
        }

        func stop() async throws {
            for service in services { try await service.stop() }
            openLibrary.stop()
            googleBooks?.stop()
            await cluster.shutdown()
            try? FileManager.default.removeItem(at: root)
        }
    }

    @Test func aGoodreadsExportBecomesBooksAndAReimportDuplicatesNothing() async throws {
        let catalog = try await Catalog.start()
        let first = try await catalog.importFile(Self.fixture("goodreads_library_export"))
        #expect(first.state == "completed")
        let report = try #require(first.report)
        #expect(report.format == .goodreads)
        #expect(report.rows == 7)
        #expect(report.books == 4)
        #expect(report.added == 4)
        #expect(report.updated == 0)
        #expect(report.mergedDuplicates == 3)
        #expect(report.invalidISBNs == 1)
        #expect(report.problems == [.missingTitle(line: 9)])
        #expect(report.missing.isEmpty)
        let cluster = catalog.cluster
        // Enrichment (the stand-in knows Dune by ISBN and The Left Hand of Darkness by title and
        // author, whose cover is not an image; neither Cien años nor the book with a typo).
        #expect(first.enrichment == BookEnrichmentCounts(enriched: 2, notFound: 2, failed: 0, pending: 0, covers: 1))
        let duneCover = try #require(try await cluster.postgres.query(
            "SELECT cover_path FROM books WHERE isbn13 = '9780441172719'").first?.string("cover_path"))
        #expect(duneCover.hasPrefix("covers/") && duneCover.hasSuffix(".jpg"))
        #expect(try Data(contentsOf: catalog.root.appendingPathComponent(duneCover)) == OpenLibraryStandIn.jpeg)
        #expect(try await cluster.count("""
            SELECT count(*) AS n FROM books WHERE title = 'The Left Hand of Darkness' AND enrich_status = 'enriched'
              AND cover_path IS NULL AND publish_year = 1969 AND page_count = 304
            """) == 1)
        #expect(try await cluster.count("SELECT count(*) AS n FROM books WHERE subjects @> '{Deserts}'") == 1)
        // The dashboard shows the type's own view as a table, with the numbers the view has.
        let views = BookImportProduction.opsViews
        let panel = try #require(try await cluster.postgres.withConnection { try DashboardQueries.snapshot(views: views, on: $0) }
            .productionViews.first { $0.name == "book_imports" })
        #expect(panel.rows.count == 1)
        let cell = { (column: String) in panel.columns.firstIndex(of: column).flatMap { panel.rows.first?[$0] } }
        #expect(cell("books") == "4")
        #expect(cell("enriched") == "2")
        #expect(cell("not_found") == "2")
        #expect(cell("skipped_rows") == "1")
        let view = try #require(views.first)
        let shown = try await view.rows(on: cluster.postgres)
        #expect(shown.count == 1)
        #expect(shown.first?.int("books") == 4)
        #expect(shown.first?.int("merged") == 3)
        #expect(shown.first?.int("enriched") == 2)
        #expect(shown.first?.int("covers") == 1)
        let asked = catalog.openLibrary.requests.count
        #expect(asked > 0)
        // The jobs report what they asked as their cost: every request the stand-in saw.
        #expect(try await cluster.count(
            "SELECT sum((result->>'requests')::int)::int AS n FROM jobs WHERE kind = 'book-import.enrich' AND state = 'succeeded'") == asked)
        #expect(catalog.openLibrary.requests.allSatisfy { $0.headers["user-agent"]?.hasPrefix("Reparto/") == true })

        #expect(try await cluster.count("SELECT count(*) AS n FROM books") == 4)
        // Frank Herbert, Ursula K. Le Guin, Pat Example, Gabriel García Márquez, Gregory Rabassa.
        #expect(try await cluster.count("SELECT count(*) AS n FROM authors") == 5)
        #expect(try await cluster.count("SELECT count(*) AS n FROM book_import_rows") == 7)
        #expect(try await cluster.count("SELECT count(*) AS n FROM library_entries") == 4)
        #expect(try await cluster.count("SELECT count(*) AS n FROM books WHERE invalid_isbns = '{0441172718}'") == 1)

        // The same file again: every book found again, nothing added.
        let again = try #require(try await catalog.importFile(Self.fixture("goodreads_library_export")).report)
        #expect(again.added == 0)
        #expect(again.updated == 4)
        #expect(try await cluster.count("SELECT count(*) AS n FROM books") == 4)
        #expect(try await cluster.count("SELECT count(*) AS n FROM authors") == 5)
        #expect(try await cluster.count("SELECT count(*) AS n FROM book_authors") == 5)
        #expect(try await cluster.count("SELECT count(*) AS n FROM book_import_rows") == 14)
        // Nothing was asked again: every book has its answer.
        #expect(catalog.openLibrary.requests.count == asked)

        // Another app's export of one of these books, without its ISBN: found by title and author.
        let storygraph = try catalog.write("""
            Title,Authors,Contributors,ISBN/UID,Format,Read Status,Date Added,Last Date Read,Star Rating,Tags
            "Dune (Dune, #1)","Frank Herbert",,,paperback,read,2025/01/01,2025/02/01,4.5,"re-read"
            """, "storygraph.csv")
        let other = try await catalog.importFile(storygraph)
        let otherReport = try #require(other.report)
        #expect(otherReport.added == 0)
        #expect(otherReport.updated == 1)
        // The three books this export lacks are reported, not removed.
        #expect(otherReport.missing.count == 3)
        #expect(otherReport.pruned == 0)
        #expect(try await cluster.count("SELECT count(*) AS n FROM books") == 4)

        let dune = try #require(try await catalog.books.book("0-441-17271-7"))
        #expect(dune.book.isbn13 == "9780441172719")
        #expect(dune.book.authors == ["Frank Herbert"])
        #expect(dune.book.library?.rating == 4.5) // the latest export's fields
        #expect(dune.rows.count == 5) // two rows in each Goodreads import, one in the StoryGraph one
        #expect(try await catalog.books.books(search: "márquez").map(\.title) == ["Cien años de soledad"])

        // With --prune the missing ones go.
        let pruned = try #require(try await catalog.importFile(storygraph, .init(prune: true)).report)
        #expect(pruned.missing.count == 3)
        #expect(pruned.pruned == 3)
        #expect(try await cluster.count("SELECT count(*) AS n FROM books") == 1)
        #expect(try await catalog.books.books().map(\.isbn13) == ["9780441172719"])
        try await catalog.stop()
    }

    @Test func rateLimitsServerErrorsAndCutShortAnswersAreRetriedUntilTheBookIsEnriched() async throws {
        let faults = Faults()
        let catalog = try await Catalog.start { request in
            if request.path == "/api/books", let fault = faults.next() { return fault }
            return OpenLibraryStandIn.reply(request)
        }
        let file = try catalog.write("""
            Title,Authors,Contributors,ISBN/UID,Format,Read Status,Date Added,Last Date Read,Star Rating,Tags
            Dune,Frank Herbert,,9780441172719,paperback,read,2025/01/01,2025/02/01,5,
            """, "storygraph.csv")
        let results = try await catalog.importFile(file)
        #expect(results.state == "completed")
        #expect(results.enrichment == BookEnrichmentCounts(enriched: 1, notFound: 0, failed: 0, pending: 0, covers: 1))
        // 429, 503, 500 and a cut-short answer, then the edition.
        #expect(catalog.openLibrary.requests.filter { $0.path == "/api/books" }.count == 5)
        #expect(try await catalog.cluster.count("SELECT count(*) AS n FROM http_cache WHERE status = 200 AND cache_key NOT LIKE 'cover:%'") == 1)
        try await catalog.stop()
    }

    /// An import names the public Open Library's politeness as a default limit: created when no
    /// limit of its name exists, never replacing an operator's.
    @Test func anImportCreatesThePoliteLimitOnlyWhenNoneExists() async throws {
        let catalog = try await Catalog.start(worker: false)
        let polite = try #require(BookServiceSettings().politeLimit)
        let file = try catalog.write("""
            Title,Authors,Contributors,ISBN/UID,Format,Read Status,Date Added,Last Date Read,Star Rating,Tags
            Dune,Frank Herbert,,9780441172719,paperback,read,2025/01/01,2025/02/01,5,
            """, "storygraph.csv")
        _ = try await catalog.books.submit(file: file, options: .init(politeness: polite))
        let created = try await catalog.cluster.client.limits().map(\.spec)
        #expect(created == [polite])

        let operators = LimitSpec(name: polite.name, rate: 1, burst: 2)
        try await catalog.cluster.client.setLimit(operators)
        _ = try await catalog.books.submit(file: file, options: .init(politeness: polite))
        #expect(try await catalog.cluster.client.limits().map(\.spec) == [operators])
        try await catalog.stop()
    }

    /// A service that does not answer: the request gives up after the configured timeout, the
    /// job is retried, and the next answer enriches the book.
    @Test func aSilentServiceTimesOutAndTheRetryEnrichesTheBook() async throws {
        let faults = Faults(replies: [.hang])
        let catalog = try await Catalog.start(openLibrary: { request in
            if request.path == "/api/books", let fault = faults.next() { return fault }
            return OpenLibraryStandIn.reply(request)
        }, configure: { $0.timeout = 1 })
        let file = try catalog.write("""
            Title,Authors,Contributors,ISBN/UID,Format,Read Status,Date Added,Last Date Read,Star Rating,Tags
            Dune,Frank Herbert,,9780441172719,paperback,read,2025/01/01,2025/02/01,5,
            """, "storygraph.csv")
        let results = try await catalog.importFile(file)
        #expect(results.state == "completed")
        #expect(results.enrichment?.enriched == 1)
        #expect(faults.remaining == 0)
        #expect(catalog.openLibrary.requests.filter { $0.path == "/api/books" }.count == 2, "the silent request and its retry")
        // The client gave up by its own timeout (1 s here), not when the stand-in let go (30 s).
        #expect(try await catalog.cluster.count(
            "SELECT count(*)::int AS n FROM jobs WHERE kind = 'book-import.enrich' AND last_error LIKE '%no answer in time%'") == 1)
        #expect(try await catalog.cluster.count("SELECT count(*) AS n FROM http_cache WHERE status = 200 AND cache_key NOT LIKE 'cover:%'") == 1)
        try await catalog.stop()
    }

    /// A cover over the size cap, Google Books refusing the key, and a garbled answer once: the
    /// books are enriched or found missing all the same, and the garbled answer is not cached.
    @Test func oversizedCoversRefusedKeysAndGarbledAnswersFailNoBook() async throws {
        let faults = Faults(replies: [.chunked(status: 200, headers: [("Content-Type", "application/json")],
                                               body: Data("<html>maintenance</html>".utf8), chunkSize: 7)])
        let catalog = try await Catalog.start(openLibrary: { request in
            if request.path == "/api/books", request.query.contains("9780060883287"), let fault = faults.next() { return fault }
            return OpenLibraryStandIn.reply(request)
        }, googleBooks: { _ in .respond(status: 403, headers: [], body: Data(#"{"error": {"message": "API key not valid"}}"#.utf8)) },
           configure: { $0.maxCoverBytes = 8 })
        let results = try await catalog.importFile(Self.fixture("goodreads_library_export"))
        #expect(results.state == "completed")
        #expect(results.enrichment == BookEnrichmentCounts(enriched: 2, notFound: 2, failed: 0, pending: 0, covers: 0))
        #expect(faults.remaining == 0)
        #expect(try await catalog.cluster.count("SELECT count(*) AS n FROM http_cache WHERE convert_from(body, 'UTF8') LIKE '%maintenance%'") == 0)
        #expect(try await catalog.cluster.count("SELECT count(*) AS n FROM http_cache WHERE cache_key = 'openlibrary:isbn:9780060883287'") == 1)
        let dune = try #require(try await catalog.books.book("9780441172719")).book
        #expect(dune.enrichStatus == "enriched")
        #expect(dune.coverPath == nil)
        try await catalog.stop()
    }

    /// An expired cache entry is asked again and replaced; a fresh one is used without a request.
    @Test func expiredCacheEntriesAreAskedAgainAndFreshOnesAreNot() async throws {
        let catalog = try await Catalog.start()
        let cluster = catalog.cluster
        // Dune: an expired entry that would say "not found"; Cien años: a fresh one that says it is known.
        _ = try await cluster.postgres.withConnection { connection in
            try connection.query("""
                INSERT INTO http_cache (cache_key, url, status, body, fetched_at, expires_at)
                VALUES ('openlibrary:isbn:9780441172719', 'x', 200, '{}'::bytea, now() - interval '8 days', now() - interval '1 day'),
                       ('openlibrary:isbn:9780060883287', 'x', 200, convert_to($1, 'UTF8'), now(), now() + interval '1 day')
                """, ["""
                {"ISBN:9780060883287": {"title": "Cien años de soledad", "authors": [{"name": "Gabriel García Márquez"}]}}
                """])
        }
        let results = try await catalog.importFile(Self.fixture("goodreads_library_export"))
        #expect(results.enrichment == BookEnrichmentCounts(enriched: 3, notFound: 1, failed: 0, pending: 0, covers: 1))
        let asked = catalog.openLibrary.requests.filter { $0.path == "/api/books" }.map(\.query)
        #expect(asked.contains { $0.contains("9780441172719") })
        #expect(!asked.contains { $0.contains("9780060883287") })
        #expect(try await cluster.count("""
            SELECT count(*) AS n FROM http_cache WHERE cache_key = 'openlibrary:isbn:9780441172719'
              AND expires_at > now() + interval '6 days' AND length(body) > 2
            """) == 1)
        try await catalog.stop()
    }

    @Test func googleBooksFillsWhatOpenLibraryLacksAndItsKeyIsNeverStored() async throws {
        let catalog = try await Catalog.start(googleBooks: GoogleBooksStandIn.reply)
        let results = try await catalog.importFile(Self.fixture("goodreads_library_export"))
        #expect(results.state == "completed")
        // Dune from both services; Cien años only Google Books knows.
        #expect(results.enrichment?.enriched == 3)
        #expect(results.enrichment?.notFound == 1)
        let dune = try #require(try await catalog.books.book("9780441172719")).book
        #expect(dune.pageCount == 612)                      // Open Library's answer first
        #expect(dune.description == "A desert planet.")     // Google Books fills the gap
        #expect(dune.language == "en")
        let cien = try #require(try await catalog.books.book("9780060883287")).book
        #expect(cien.publishers == ["Harper Perennial"])
        #expect(cien.coverPath == nil)
        let google = try #require(catalog.googleBooks)
        #expect(google.requests.count == 2) // the two books with an ISBN
        #expect(google.requests.allSatisfy { $0.query.contains("key=\(GoogleBooksStandIn.key)") })
        #expect(try await catalog.cluster.count("SELECT count(*) AS n FROM http_cache WHERE url LIKE '%' || $1 || '%'",
                                                [GoogleBooksStandIn.key]) == 0)
        #expect(try await catalog.cluster.count("SELECT count(*) AS n FROM http_cache WHERE cache_key LIKE 'google-books:%'") == 2)

        // The export holds what the services said.
        let csv = BookImportText.csv(try await catalog.books.books(limit: Int.max))
        let table = try CSVReader.read(Array(csv.utf8))
        #expect(table.records.count == 4)
        let descriptionless = try #require(table.column("language"))
        #expect(table.records.contains { $0.fields[descriptionless] == "en" })
        try await catalog.stop()
    }

    /// A worker killed with SIGKILL while it waits on Open Library: its job is rescued and run
    /// again elsewhere, and no book, author, cover or cache entry exists twice, also after a re-import.
    @Test func aWorkerKilledMidEnrichmentDuplicatesNothing() async throws {
        let faults = Faults(replies: [.hang])
        let catalog = try await Catalog.start(openLibrary: { request in
            if request.path == "/api/books", request.query.contains("9780441172719"), let fault = faults.next() { return fault }
            return OpenLibraryStandIn.reply(request)
        }, worker: false)
        let cluster = catalog.cluster
        var environment = try cluster.processEnvironment()
        environment["REPARTO_ASSETS"] = catalog.root.path
        environment["REPARTO_OPENLIBRARY_URL"] = catalog.openLibrary.baseURL
        let victim = try RepartoProcess.start(TestCluster.workerArguments(["--queues", "books"]), environment: environment)
        let id = try await catalog.books.submit(file: Self.fixture("goodreads_library_export"))
        try await cluster.wait(for: "the victim to wait on Open Library for Dune") { faults.remaining == 0 }
        kill(victim.processIdentifier, SIGKILL)
        await RepartoProcess.waitForExit(victim)
        let survivor = cluster.startWorker(registry: catalog.registry, concurrency: 2, prefetch: 4)
        let progress = try await cluster.client.awaitProduction(id, timeout: 120)
        #expect(progress.isFinished)
        let results = try #require(try await catalog.books.results(id))
        #expect(results.state == "completed")
        #expect(results.enrichment == BookEnrichmentCounts(enriched: 2, notFound: 2, failed: 0, pending: 0, covers: 1))
        // The enrich job was interrupted and ran again.
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE kind = 'book-import.enrich' AND attempts >= 2") == 1)

        func assertNothingTwice() async throws {
            #expect(try await cluster.count("SELECT count(*) AS n FROM books") == 4)
            #expect(try await cluster.count("SELECT count(*) AS n FROM authors") == 5)
            #expect(try await cluster.count("SELECT count(*) AS n FROM book_authors") == 5)
            #expect(try await cluster.count("SELECT count(DISTINCT cover_path) AS n FROM books WHERE cover_path IS NOT NULL") == 1)
            let covers = try FileManager.default.contentsOfDirectory(atPath: catalog.root.appendingPathComponent("covers").path)
            #expect(covers.filter { !$0.hasPrefix(".") }.count == 1, "\(covers)")
        }
        try await assertNothingTwice()
        let again = try await catalog.importFile(Self.fixture("goodreads_library_export"))
        #expect(again.report?.added == 0)
        try await assertNothingTwice()
        try await survivor.stop()
        try await catalog.stop()
    }

    @Test func badFilesCreateNothing() async throws {
        let catalog = try await Catalog.start()
        let binary = catalog.root.appendingPathComponent("cover.csv")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D]).write(to: binary)
        await #expect(throws: BookImportError.self) { try await catalog.books.submit(file: binary) }
        let unknown = try catalog.write("Name,Email\nA,a@example.com\n", "contacts.csv")
        await #expect(throws: BookImportError.self) { try await catalog.books.submit(file: unknown) }
        let wrongFormat = Self.fixture("goodreads_library_export")
        await #expect(throws: BookImportError.self) {
            try await catalog.books.submit(file: wrongFormat, options: .init(format: .libraryThing))
        }
        #expect(try await catalog.cluster.count("SELECT count(*) AS n FROM productions") == 0)

        // Through the CLI: one line on stderr, a non-zero exit, still nothing created.
        let output = try await RepartoProcess.run(["import", binary.path], environment: try catalog.cluster.processEnvironment())
        #expect(output.status != 0)
        #expect(output.stderr.contains("not a CSV file: binary content"))
        #expect(output.stderr.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").count == 1)
        #expect(output.stdout.isEmpty)
        #expect(try await catalog.cluster.count("SELECT count(*) AS n FROM productions") == 0)
        try await catalog.stop()
    }

    @Test func theCLIImportsWaitsAndListsBooks() async throws {
        let catalog = try await Catalog.start()
        var environment = try catalog.cluster.processEnvironment()
        environment["REPARTO_ASSETS"] = catalog.root.path
        let output = try await RepartoProcess.run(["import", Self.fixture("librarything_export").path, "--wait", "--name", "lt"],
                                                  environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("format      librarything"))
        #expect(output.stdout.contains("line 5 merged into line 3 (same title and author)"))
        let list = try await RepartoProcess.run(["books", "list", "--json"], environment: environment)
        #expect(list.status == 0, "\(list.stderr)")
        let books = try JSONDecoder().decode([CatalogBook].self, from: Data(list.stdout.utf8))
        #expect(books.map(\.title).sorted() == ["Hobbit, The", "Kindred"])
        let id = try #require(output.stdout.split(separator: "\n").first.map(String.init))
        let results = try await RepartoProcess.run(["results", id, "--json"], environment: environment)
        #expect(results.status == 0, "\(results.stderr)")
        #expect(try JSONDecoder().decode(BookImportResults.self, from: Data(results.stdout.utf8)).report?.books == 2)
        let watch = try await RepartoProcess.run(["watch", id], environment: environment)
        #expect(watch.status == 0, "\(watch.stderr)")
        #expect(watch.stdout.contains("production \(id) completed"), "\(watch.stdout)")
        let export = try await RepartoProcess.run(["books", "export", "--csv"], environment: environment)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try CSVReader.read(Array(export.stdout.utf8)).records.count == 2)
        let neither = try await RepartoProcess.run(["books", "export"], environment: environment)
        #expect(neither.status != 0)
        try await catalog.stop()
    }
}

/// A Google Books stand-in speaking its `volumes` format.
enum GoogleBooksStandIn {
    static let key = "test-google-key-7f3a"

    @Sendable static func reply(_ request: FakeHTTPServer.Request) -> FakeHTTPServer.Reply {
        guard request.path == "/books/v1/volumes" else { return .respond(status: 404, headers: [], body: Data()) }
        let body: String
        if request.query.contains("q=isbn:9780441172719") {
            body = """
                {"kind": "books#volumes", "totalItems": 1, "items": [{"id": "g-dune", "volumeInfo": {"title": "Dune",
                  "authors": ["Frank Herbert"], "description": "A desert planet.", "language": "en", "pageCount": 1}}]}
                """
        } else if request.query.contains("q=isbn:9780060883287") {
            body = """
                {"kind": "books#volumes", "totalItems": 1, "items": [{"id": "g-cien", "volumeInfo": {"title": "Cien años de soledad",
                  "authors": ["Gabriel García Márquez"], "publisher": "Harper Perennial", "publishedDate": "2006-02-21",
                  "industryIdentifiers": [{"type": "ISBN_13", "identifier": "9780060883287"}], "language": "es"}}]}
                """
        } else {
            body = #"{"kind": "books#volumes", "totalItems": 0}"#
        }
        return .respond(status: 200, headers: [("Content-Type", "application/json")], body: Data(body.utf8))
    }
}

/// Replies the stand-in gives before its real answers, one per request, in order.
final class Faults: @unchecked Sendable {
    // `@unchecked Sendable`: `queue` is only touched under `lock`.
    private let lock = NSLock()
    private var queue: [FakeHTTPServer.Reply]

    init(replies: [FakeHTTPServer.Reply] = Faults.standard) { queue = replies }

    /// Replies not given yet.
    var remaining: Int { lock.withLock { queue.count } }

    static let standard: [FakeHTTPServer.Reply] = [
        .respond(status: 429, headers: [("Retry-After", "1")], body: Data("slow down".utf8)),
        .respond(status: 503, headers: [("Retry-After", "1")], body: Data("busy".utf8)),
        .respond(status: 500, headers: [], body: Data("oops".utf8)),
        .truncated(status: 200, headers: [("Content-Type", "application/json")], declaredLength: 400, body: Data(#"{"ISBN:978"#.utf8)),
    ]

    func next() -> FakeHTTPServer.Reply? {
        lock.withLock { queue.isEmpty ? nil : queue.removeFirst() }
    }
}

/// An Open Library stand-in speaking its wire formats, with answers written for these tests.
enum OpenLibraryStandIn {
    /// A tiny JPEG-looking file (the magic bytes are what is checked).
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0xFF, 0xD9])

    static func json(_ text: String) -> FakeHTTPServer.Reply {
        .respond(status: 200, headers: [("Content-Type", "application/json")], body: Data(text.utf8))
    }

    /// What `/search.json` returns of a work when the request names no `fields=`: its
    /// `default_fetched_fields` (openlibrary/plugins/worksearch/schemes/works.py). `isbn`,
    /// `publisher`, `number_of_pages_median` and `subject` come only when `fields=` names them.
    static let defaultSearchFields: Set<String> = [
        "key", "author_name", "author_key", "title", "subtitle", "edition_count", "ia", "has_fulltext",
        "first_publish_year", "cover_i", "cover_edition_key", "public_scan_b", "lending_edition_s",
        "lending_identifier_s", "language", "ia_collection_s", "ebook_access",
    ]

    /// The `fields=` of a search (comma-separated; `*` for all), or nil.
    static func fields(_ query: String) -> Set<String>? {
        for pair in query.split(separator: "&") where pair.hasPrefix("fields=") {
            return Set(pair.dropFirst("fields=".count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return nil
    }

    /// A `/search.json` answer with `docs` cut to the fields the live API would return.
    static func search(_ docs: [[String: Any]], fields: Set<String>?) -> FakeHTTPServer.Reply {
        let wanted = fields ?? defaultSearchFields
        let shown = docs.map { doc in wanted.contains("*") ? doc : doc.filter { wanted.contains($0.key) } }
        let object: [String: Any] = ["numFound": docs.count, "start": 0, "numFoundExact": true, "docs": shown]
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return .respond(status: 200, headers: [("Content-Type", "application/json")], body: body)
    }

    @Sendable static func reply(_ request: FakeHTTPServer.Request) -> FakeHTTPServer.Reply {
        let query = request.query.removingPercentEncoding ?? request.query
        let base = "http://127.0.0.1:\(request.headers["host"]?.split(separator: ":").last ?? "0")"
        switch request.path {
        case "/api/books" where query.contains("bibkeys=ISBN:9780441172719"):
            return json("""
                {"ISBN:9780441172719": {"key": "/books/OL1M", "title": "Dune", "authors": [{"name": "Frank Herbert"}],
                  "number_of_pages": 612, "publishers": [{"name": "Ace Books"}], "publish_date": "1990",
                  "subjects": [{"name": "Science fiction"}, {"name": "Deserts"}],
                  "identifiers": {"isbn_10": ["0441172717"], "isbn_13": ["9780441172719"]},
                  "cover": {"small": "\(base)/covers/dune-S.jpg", "large": "\(base)/covers/dune-L.jpg"}}}
                """)
        case "/api/books" where query.contains("bibkeys=ISBN:9780441478125"):
            return json("""
                {"ISBN:9780441478125": {"key": "/books/OL2M", "title": "The Left Hand of Darkness",
                  "authors": [{"name": "Ursula K. Le Guin"}], "number_of_pages": 304, "publish_date": "1969",
                  "cover": {"large": "\(base)/b/id/8231856-L.jpg"}}}
                """)
        case "/api/books":
            return json("{}")
        case "/search.json" where query.contains("title=The Left Hand of Darkness"):
            return search([[
                "key": "/works/OL3W", "title": "The Left Hand of Darkness", "author_name": ["Ursula K. Le Guin"],
                "author_key": ["OL31353A"], "first_publish_year": 1969, "cover_i": 8_231_856, "edition_count": 173,
                "language": ["eng"], "has_fulltext": true, "ebook_access": "borrowable", "public_scan_b": false,
                "isbn": ["0441478123"], "publisher": ["Ace Books"], "number_of_pages_median": 304,
                "subject": ["Science fiction", "Gender"],
            ]], fields: fields(query))
        case "/search.json":
            return search([], fields: fields(query))
        case "/covers/dune-L.jpg":
            return .respond(status: 200, headers: [("Content-Type", "image/jpeg")], body: jpeg)
        case "/b/id/8231856-L.jpg":
            // The Left Hand of Darkness's cover, by the id its search result names: claims to be
            // an image; is an error page.
            return .respond(status: 200, headers: [("Content-Type", "image/jpeg")], body: Data("<html>no cover</html>".utf8))
        default:
            return .respond(status: 404, headers: [], body: Data())
        }
    }
}
