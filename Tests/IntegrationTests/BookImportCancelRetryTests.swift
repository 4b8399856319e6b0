import BookImport
import Foundation
import RepartoRuntime
import RepartoTestSupport
import Testing

/// Cancelling a running book import and retrying it, against the real servers: a worker running
/// one job at a time and an Open Library stand-in that answers the first book it is asked about
/// and holds the next, so at the cancel one enrich job has finished, one is running and four wait.
@Suite("book import: cancel while enriching, then retry", .timeLimit(.minutes(4)))
struct BookImportCancelRetryTests {
    static let titles = ["Ashgrove", "Brinewater", "Cinderfell", "Dovecote", "Emberline", "Foxhollow"]

    /// A StoryGraph export of six books without ISBNs: each is looked up by one title search.
    static let export = """
        Title,Authors,Contributors,ISBN/UID,Format,Read Status,Date Added,Last Date Read,Star Rating,Tags
        \(titles.enumerated().map { "\($1),Writer Number\($0),,,paperback,read,2025/01/0\($0 + 1),,4,\"\"" }.joined(separator: "\n"))
        """

    /// The title of a `/search.json` request.
    static func title(_ request: FakeHTTPServer.Request) -> String? {
        guard request.path == "/search.json" else { return nil }
        let query = request.query.removingPercentEncoding ?? request.query
        return query.split(separator: "&").first { $0.hasPrefix("title=") }.map { String($0.dropFirst("title=".count)) }
    }

    @Test func aCancelledImportKeepsWhatFinishedAndItsRetryRunsOnlyTheRest() async throws {
        let gate = HeldStandIn(free: 1)
        let catalog = try await BookImportTests.Catalog.start(openLibrary: { request in
            if let title = Self.title(request), !gate.admit(title) {
                return .respond(status: 503, headers: [], body: Data("held too long".utf8))
            }
            return OpenLibraryStandIn.reply(request)
        }, worker: false)
        let cluster = catalog.cluster
        // One job at a time: while the held book's job runs, the others wait.
        let worker = cluster.startWorker(registry: catalog.registry, concurrency: 1, prefetch: 1)
        let file = try catalog.write(Self.export, "storygraph.csv")
        let id = try await catalog.books.submit(file: file, options: .init(booksPerJob: 1))
        @Sendable func enrich(_ state: String) async throws -> Int {
            try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE production_id = $1 AND kind = 'book-import.enrich' AND state = $2",
                                    [id, state])
        }
        try await cluster.wait(timeout: 90, for: "one book enriched and the next one's job held by the stand-in") {
            let (succeeded, running) = (try await enrich("succeeded"), try await enrich("running"))
            return succeeded == 1 && running == 1 && gate.held.count == 1
        }
        #expect(try await enrich("queued") == 4, "four enrich jobs wait behind the held one")
        let finished = try await cluster.postgres.query("""
            SELECT id, finished_at, attempts FROM jobs WHERE production_id = $1 AND state = 'succeeded' ORDER BY kind
            """, [id]).map { [$0.string("id"), $0.string("finished_at"), $0.string("attempts")] }
        #expect(finished.count == 2, "the parse job and one enrich job")

        try await cluster.client.cancel(id)
        try await cluster.wait(timeout: 60, for: "the held job and the waiting ones cancelled") { try await enrich("cancelled") == 5 }
        #expect(try await cluster.client.progress(id).state == "cancelled")
        let cancelled = try #require(try await catalog.books.results(id))
        #expect(cancelled.state == "cancelled")
        #expect(cancelled.report?.books == 6, "the parse's books stay")
        #expect(cancelled.enrichment == BookEnrichmentCounts(notFound: 1, pending: 5), "the finished book keeps its answer")
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM books") == 6)
        #expect(try await cluster.count("""
            SELECT count(*)::int AS n FROM jobs WHERE production_id = $1 AND state = 'cancelled' AND last_error = 'cancelled while running'
            """, [id]) == 1, "the held job was stopped while running")
        let answeredBefore = try #require(gate.answered.first)
        let heldTitle = try #require(gate.held.first)

        // The held request gets its (late) answer; every later request is answered.
        gate.openEverything()
        #expect(try await cluster.client.retry(id) == 5, "only the cancelled jobs run again")
        let progress = try await cluster.client.awaitProduction(id, timeout: 120)
        #expect(progress.state == "completed")
        let done = try #require(try await catalog.books.results(id))
        #expect(done.enrichment == BookEnrichmentCounts(notFound: 6, pending: 0))
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE production_id = $1", [id]) == 7,
                "no new job: the parse and six enrich jobs")
        #expect(try await enrich("succeeded") == 6)
        let stillFinished = try await cluster.postgres.query("""
            SELECT id, finished_at, attempts FROM jobs WHERE id = ANY($1::uuid[]) ORDER BY kind
            """, [finished.compactMap { $0[0] }]).map { [$0.string("id"), $0.string("finished_at"), $0.string("attempts")] }
        #expect(stillFinished == finished, "the jobs that had finished were not run again")

        // Each book asked exactly as often as it ran: the finished one once, the held one twice
        // (the held request and its retry), the four that waited once.
        let asked = Dictionary(catalog.openLibrary.requests.compactMap(Self.title).map { ($0, 1) }, uniquingKeysWith: +)
        #expect(asked[answeredBefore] == 1 && asked[heldTitle] == 2, "\(asked)")
        #expect(Set(asked.keys) == Set(Self.titles))
        #expect(asked.filter { $0.key != answeredBefore && $0.key != heldTitle }.values.allSatisfy { $0 == 1 }, "\(asked)")
        #expect(try await cluster.client.retry(id) == 0, "nothing left to retry")

        try await worker.stop()
        try await catalog.stop()
    }
}
