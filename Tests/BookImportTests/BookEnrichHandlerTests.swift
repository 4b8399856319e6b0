import BookCatalog
import BookImport
import Composition
import Foundation
import Postgres
import ProductionKit
import RepartoConfiguration
import RepartoTestSupport
import RepartoTesting
import Testing

/// The enrich job's handler through RepartoTesting, against an Open Library stand-in: what an
/// unmatched row writes (the book's state, its review item) and what a held cover enqueues
/// exist only inside the job's completion transaction.
@Suite(.timeLimit(.minutes(2)))
struct BookEnrichHandlerTests {
    /// A search answer with the default-field rule: `fields=` or the defaults.
    static func search(_ query: String) -> FakeHTTPServer.Reply {
        let docs: [[String: Any]] = query.contains("title=The%20Silent%20Orchard") ? [
            ["key": "/works/OL82W", "title": "The Silent Orchard", "author_name": ["Harriet Barrowe"], "first_publish_year": 2004,
             "cover_i": 82_001, "isbn": ["9780441013593"], "publisher": ["Harvill Press"]],
        ] : []
        let wanted = query.split(separator: "&").first { $0.hasPrefix("fields=") }
            .map { Set($0.dropFirst("fields=".count).split(separator: ",").map(String.init)) } ?? ["key", "title", "author_name"]
        let body = try? JSONSerialization.data(withJSONObject: ["numFound": docs.count, "start": 0,
                                                                "docs": docs.map { $0.filter { wanted.contains($0.key) } }])
        return .respond(status: 200, headers: [("Content-Type", "application/json")], body: body ?? Data())
    }

    @Test func anUnmatchedRowsReviewItemIsWrittenInTheJobsTransactionOnly() async throws {
        let database = try await BookImportHandlerTests.database()
        let openLibrary = try FakeHTTPServer { request in
            request.path == "/search.json" ? Self.search(request.query) : .respond(status: 404, headers: [], body: Data())
        }
        let (id, _) = try await database.postgres.withTransaction { connection in
            try CatalogBooks.add(BookCandidate(title: "The Silent Orchard", authors: ["Mara Barrowe"]), on: connection)
        }
        let registry = JobRegistry()
        BookImportProduction.register(in: registry, environment: ProductionEnvironment(
            assetsRoot: database.assetsRoot,
            configuration: ConfigurationValues(environment: [BookServiceSettings.openLibraryVariable: openLibrary.baseURL]),
            postgres: database.postgres))
        let run = try await JobTester(registry: registry, postgres: database.postgres).run(BookEnrichJob(bookIDs: [id])) { transaction in
            let book = try transaction.rows("SELECT enrich_status, match_score, publishers FROM books WHERE id = $1", [id]).first
            let items = try transaction.count("SELECT count(*)::int FROM book_reviews WHERE existing_book_id = $1 AND source = 'book-import'", [id])
            return [book?.string("enrich_status") ?? "", String(book?.double("match_score") ?? -1), book?.string("publishers") ?? "null",
                    String(items)]
        }
        #expect(run.succeeded, "\(run.error ?? "")")
        #expect(run.inspected == ["unmatched", "0.5", "null", "1"], "the reader's fields, a score, an item")
        #expect(try run.result(as: BookEnrichResult.self).unmatched == 1)
        #expect(run.reportedCost == 1, "one search against Open Library's budget")
        // Rolled back: the book is as it was, and no item is open.
        #expect(try await database.postgres.query("SELECT enrich_status FROM books WHERE id = $1", [id]).first?.string("enrich_status") == nil)
        #expect(try await database.postgres.query("SELECT count(*)::int AS n FROM book_reviews").first?.int("n") == 0)
        let asked = try #require(openLibrary.requests.first)
        #expect(asked.query.contains("fields=\(OpenLibraryResponse.searchFields.joined(separator: ","))"))
        openLibrary.stop()
        await database.drop()
    }
}
