import BookCatalog
import BookImport
import Foundation
import Postgres
import RepartoRuntime
import RepartoTestSupport
import Testing

/// The catalog side of matching (CatalogBooks, BookSearch) and the review list (BookReviews,
/// BookReviewClient, `reparto books review`) against a real PostgreSQL.
@Suite("book review", .serialized, .timeLimit(.minutes(5)))
struct BookReviewTests {
    static let dune = BookCandidate(title: "Dune", authors: ["Frank Herbert"], year: 1965, isbn13: "9780441172719",
                                    openLibraryKey: "/works/OL893415W", publisher: "Chilton Books")
    static let messiah = BookCandidate(title: "Dune Messiah", authors: ["Frank Herbert"], year: 1969)
    static let hobbit = BookCandidate(title: "The Hobbit", subtitle: "or There and Back Again", authors: ["J.R.R. Tolkien"])
    static let road = BookCandidate(title: "The Road", authors: ["Jack London"], isbn13: "0-14-043974-9")

    /// Adds candidates in one transaction; returns their ids and whether each existed.
    static func add(_ candidates: [BookCandidate], on postgres: PostgresClient) async throws -> [(id: UUID, existed: Bool)] {
        try await postgres.withTransaction { connection in try candidates.map { try CatalogBooks.add($0, on: connection) } }
    }

    static func open(_ title: String, _ author: String?, reference: String, candidates: [BookCandidate], production: UUID? = nil,
                     on postgres: PostgresClient) async throws -> UUID {
        let matches = BookMatcher.ranked(title: title, author: author, candidates: candidates)
        return try await postgres.withTransaction { connection in
            try BookReviews.open(source: "bookshelf-scan", productionID: production, reference: reference, title: title, author: author,
                                 candidates: matches, on: connection)
        }
    }

    @Test func addingABookNeverMergesItAndAKnownISBNIsThatBook() async throws {
        let cluster = try await TestCluster.make()
        let postgres = cluster.postgres
        let first = try await Self.add([Self.dune, Self.messiah, Self.hobbit], on: postgres)
        #expect(first.map(\.existed) == [false, false, false])
        // The same ISBN (written as an ISBN-10) is the same book; the same title and author without one is a new book.
        let again = try await Self.add([BookCandidate(title: "DUNE", authors: ["Someone Else"], isbn13: "0441172717"), Self.messiah], on: postgres)
        #expect(again[0].id == first[0].id && again[0].existed)
        #expect(again[1].id != first[1].id && !again[1].existed)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM books") == 4)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM books WHERE title = 'Dune Messiah'") == 2)
        // Authors are the import's: one row per author key, linked in order.
        let omens = try await Self.add([BookCandidate(title: "Good Omens", authors: ["Terry Pratchett", "Neil Gaiman"], publisher: "Gollancz")],
                                       on: postgres)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM authors") == 4)
        let book = try #require(try await BookImportClient(postgres: postgres, assetsRoot: cluster.assetsRoot).book(omens[0].id.uuidString))
        #expect(book.book.authors == ["Terry Pratchett", "Neil Gaiman"])
        #expect(book.book.publisher == "Gollancz")
        #expect(book.book.library == nil)
        let stored = try #require(try await postgres.query("SELECT match_key, year, subtitle FROM books WHERE id = $1", [first[2].id]).first)
        #expect(stored.string("match_key") == "hobbit|jrr tolkien")
        #expect(stored.string("subtitle") == "or There and Back Again")
        // An ISBN that fails its checksum is kept, flagged, and names no book.
        let broken = try await Self.add([BookCandidate(title: "Kindred", authors: ["Octavia E. Butler"], isbn13: "0807083691")], on: postgres)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM books WHERE id = $1 AND isbn13 IS NULL AND invalid_isbns = '{0807083691}'",
                                        [broken[0].id]) == 1)
        await #expect(throws: CatalogBooksError.noTitle) { try await Self.add([BookCandidate(title: " -- ")], on: postgres) }
        await cluster.shutdown()
    }

    @Test func theCatalogIsLookedUpByISBNMatchKeyAndTitleKey() async throws {
        let cluster = try await TestCluster.make()
        let postgres = cluster.postgres
        let ids = try await Self.add([Self.dune, Self.messiah, Self.hobbit,
                                      BookCandidate(title: "Dune", subtitle: "Deluxe Edition", authors: ["Frank Herbert"])], on: postgres)
        func lookup(_ title: String, _ author: String?, isbn: String? = nil) async throws -> [CatalogEntry] {
            try await postgres.withConnection { try CatalogBooks.lookup(title: title, author: author, isbn13: isbn, on: $0) }
        }
        // The ISBN's book first, whatever the title says.
        let byISBN = try await lookup("Something Else", nil, isbn: "0441172717")
        #expect(byISBN.map(\.id) == [ids[0].id])
        #expect(byISBN.first == CatalogEntry(id: ids[0].id, title: "Dune", authors: ["Frank Herbert"], isbn13: "9780441172719"))
        // A spine with the surname only: not the match key, but the title key finds Dune, and
        // the books whose title begins with it come along for the matcher to turn down.
        let spine = try await lookup("DUNE", "HERBERT")
        #expect(Set(spine.map(\.id)) == Set([ids[0].id, ids[1].id, ids[3].id]))
        #expect(spine.first { $0.id == ids[3].id }?.subtitle == "Deluxe Edition")
        let ranked = BookMatcher.ranked(title: "DUNE", author: "HERBERT", candidates: spine.map(\.candidate))
        #expect(ranked.map(\.candidate.fullTitle) == ["Dune", "Dune: Deluxe Edition", "Dune Messiah"])
        #expect(ranked[0].candidate.isbn13 == "9780441172719")
        #expect(ranked[0].isAccepted)
        // Without an author, and with the article and subtitle dropped.
        #expect(try await lookup("hobbit", nil).map(\.id) == [ids[2].id])
        #expect(try await lookup("The Hobbit: or There and Back Again", "Tolkien, J.R.R.").map(\.id) == [ids[2].id])
        // The cover's edition words are dropped too.
        #expect(Set(try await lookup("Dune: 40th Anniversary Edition", "Frank Herbert").map(\.id)) == Set([ids[0].id, ids[3].id]))
        #expect(try await lookup("Emma", nil).isEmpty)
        #expect(try await lookup("  ", nil).isEmpty)
        await cluster.shutdown()
    }

    @Test func reviewItemsAreOpenedListedAcceptedAndRejected() async throws {
        let cluster = try await TestCluster.make()
        let postgres = cluster.postgres
        let known = try await Self.add([Self.dune], on: postgres)[0].id
        let production = try await cluster.client.createProduction(name: "shelf", plan: "bookshelf-scan", stage: "match")
        let duneItem = try await Self.open("DUNE", nil, reference: "photo 1, spine 1", candidates: [Self.messiah, Self.dune],
                                           production: production, on: postgres)
        let roadItem = try await Self.open("The Road", "Cormac McCarthy", reference: "photo 1, spine 2", candidates: [Self.road], on: postgres)
        let unknownItem = try await Self.open("The Unwritten Book", "A. N. Author", reference: "photo 2, spine 1", candidates: [], on: postgres)
        let reviews = BookReviewClient(postgres: postgres)
        let books = { try await cluster.count("SELECT count(*)::int AS n FROM books") }

        let open = try await reviews.list()
        #expect(open.map(\.id) == [duneItem, roadItem, unknownItem])
        let dune = open[0]
        #expect(dune.source == "bookshelf-scan" && dune.productionID == production && dune.state == "open")
        #expect(dune.reference == "photo 1, spine 1" && dune.title == "DUNE" && dune.author == nil)
        // Stored best first: Dune (0.84 without an author), then Dune Messiah.
        #expect(dune.candidates.map(\.candidate) == [Self.dune, Self.messiah])
        #expect(dune.candidates[0].score == 0.84)
        #expect(dune.candidates[0].evidence.first == "title equal")
        #expect(dune.bookID == nil && dune.decidedAt == nil)
        #expect(abs(dune.createdAt.timeIntervalSinceNow) < 300)

        // Accepting Dune: the catalog has its ISBN, so that book is recorded and none is added.
        let accepted = try await reviews.accept(duneItem, candidate: 0, asRead: false)
        #expect(accepted.state == "accepted" && accepted.bookID == known && accepted.decidedAt != nil)
        #expect(try await books() == 1)
        await #expect(throws: BookReviewError.decided(duneItem, state: "accepted")) {
            try await reviews.accept(duneItem, candidate: 1, asRead: false)
        }
        await #expect(throws: BookReviewError.decided(duneItem, state: "accepted")) { try await reviews.reject(duneItem) }

        // Rejecting: nothing is added, and a decided item stays decided.
        let rejected = try await reviews.reject(roadItem)
        #expect(rejected.state == "rejected" && rejected.bookID == nil && rejected.decidedAt != nil)
        #expect(try await books() == 1)
        await #expect(throws: BookReviewError.decided(roadItem, state: "rejected")) {
            try await reviews.accept(roadItem, candidate: 0, asRead: false)
        }

        // An item without candidates: only the reading itself can be accepted.
        await #expect(throws: BookReviewError.candidateOutOfRange(unknownItem, index: 0, count: 0)) {
            try await reviews.accept(unknownItem, candidate: 0, asRead: false)
        }
        await #expect(throws: BookReviewError.twoChoices) { try await reviews.accept(unknownItem, candidate: 0, asRead: true) }
        await #expect(throws: BookReviewError.noChoice) { try await reviews.accept(unknownItem, candidate: nil, asRead: false) }
        let missing = UUID()
        await #expect(throws: BookReviewError.unknownReview(missing)) { try await reviews.reject(missing) }
        let asRead = try await reviews.accept(unknownItem, candidate: nil, asRead: true)
        let added = try #require(asRead.bookID)
        #expect(try await books() == 2)
        let book = try #require(try await BookImportClient(postgres: postgres, assetsRoot: cluster.assetsRoot).book(added.uuidString)).book
        #expect(book.title == "The Unwritten Book" && book.authors == ["A. N. Author"] && book.isbn13 == nil)
        // Nothing enriches a book unless asked to.
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM jobs") == 0)

        #expect(try await reviews.list().isEmpty)
        #expect(try await reviews.list(state: nil).map(\.state) == ["accepted", "rejected", "accepted"])
        #expect(try await reviews.list(state: "rejected").map(\.id) == [roadItem])
        #expect(try await reviews.list(state: nil, limit: 1).count == 1)
        await #expect(throws: BookReviewError.invalidState("done")) { try await reviews.list(state: "done") }
        await #expect(throws: BookReviewError.invalidLimit(0)) { try await reviews.list(limit: 0) }

        // A candidate with a new ISBN is added with it; a second item naming the same ISBN finds that book.
        let first = try await Self.open("The Road", "Jack London", reference: "photo 3, spine 1", candidates: [Self.road], on: postgres)
        let second = try await Self.open("THE ROAD", "LONDON", reference: "photo 3, spine 2", candidates: [Self.road], on: postgres)
        let enriching = BookReviewClient(postgres: postgres, enrichAdded: true, politeness: BookServiceSettings().politeLimit)
        let road = try #require(try await enriching.accept(first, candidate: 0, asRead: false).bookID)
        #expect(try await enriching.accept(second, candidate: 0, asRead: false).bookID == road)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM books WHERE isbn13 = '9780140439748'") == 1)
        // One enrich job, for the book added (none for the one found), under the polite limit.
        let jobs = try await postgres.query("SELECT kind, params::text AS parameters FROM jobs")
        #expect(jobs.map { $0.string("kind") } == [BookEnrichJob.kind])
        #expect(jobs.first?.string("parameters")?.contains(road.uuidString) == true)
        #expect(try await cluster.client.limits().map(\.spec.name) == [BookEnrichJob.defaultLimit])

        // A candidate from the catalog is that book, ISBN or not: accepting it adds nothing.
        let messiah = try await Self.add([Self.messiah], on: postgres)[0].id
        let entries = try await postgres.withConnection { try CatalogBooks.lookup(title: "Dune Messiah", author: "Herbert", isbn13: nil, on: $0) }
        #expect(entries.map(\.id) == [messiah])
        #expect(entries[0].candidate.catalogID == messiah)
        let owned = try await Self.open("DUNE MESSIAH", "HERBERT", reference: "photo 4, spine 1", candidates: entries.map(\.candidate),
                                        on: postgres)
        let before = try await books()
        #expect(try await reviews.accept(owned, candidate: 0, asRead: false).bookID == messiah)
        #expect(try await books() == before)

        // The production going leaves its items.
        _ = try await postgres.query("DELETE FROM productions WHERE id = $1", [production])
        #expect(try await reviews.review(duneItem)?.productionID == nil)

        // What may open an item.
        await #expect(throws: BookReviewError.invalidSource("camera")) {
            try await postgres.withTransaction { connection in
                try BookReviews.open(source: "camera", productionID: nil, reference: "x", title: "Dune", author: nil, candidates: [], on: connection)
            }
        }
        await #expect(throws: BookReviewError.noTitle) {
            try await postgres.withTransaction { connection in
                try BookReviews.open(source: "book-import", productionID: nil, reference: "line 3", title: "  ", author: nil, candidates: [],
                                     on: connection)
            }
        }
        await cluster.shutdown()
    }

    @Test func idsAreResolvedFromAUniquePrefix() async throws {
        let cluster = try await TestCluster.make()
        let postgres = cluster.postgres
        _ = try await postgres.query("""
            INSERT INTO book_reviews (id, source, reference, title) VALUES
              ('abcdef01-1111-4000-8000-000000000001', 'book-import', 'line 1', 'One'),
              ('abcdef01-2222-4000-8000-000000000002', 'book-import', 'line 2', 'Two'),
              ('0123abcd-3333-4000-8000-000000000003', 'book-import', 'line 3', 'Three')
            """)
        let reviews = BookReviewClient(postgres: postgres)
        let three = UUID(uuidString: "0123abcd-3333-4000-8000-000000000003")!
        #expect(try await reviews.resolve("0123abcd") == three)
        #expect(try await reviews.resolve("0123ABCD-33") == three)
        #expect(try await reviews.resolve("0123abcd3333") == three)
        #expect(try await reviews.resolve("0123abcd-3333-4000-8000-000000000003") == three)
        #expect(try await reviews.resolve("abcdef01-1") == UUID(uuidString: "abcdef01-1111-4000-8000-000000000001"))
        await #expect(throws: BookReviewError.ambiguousID("abcdef01")) { try await reviews.resolve("abcdef01") }
        await #expect(throws: BookReviewError.noMatchingReview("99999999")) { try await reviews.resolve("99999999") }
        await #expect(throws: BookReviewError.invalidID("0123abc")) { try await reviews.resolve("0123abc") }
        await #expect(throws: BookReviewError.invalidID("0123abcz")) { try await reviews.resolve("0123abcz") }
        await #expect(throws: BookReviewError.invalidID("%%%%%%%%")) { try await reviews.resolve("%%%%%%%%") }
        await cluster.shutdown()
    }

    @Test func aSearchAsksOpenLibraryOnceForItsFieldsAndThenTheCacheAnswers() async throws {
        let cluster = try await TestCluster.make()
        let faults = Faults(replies: [.respond(status: 200, headers: [], body: Data("<html>busy</html>".utf8))])
        let openLibrary = try FakeHTTPServer { request in
            guard request.path == "/search.json" else { return .respond(status: 404, headers: [], body: Data()) }
            if request.query.contains("title=Emma"), let fault = faults.next() { return fault }
            if request.query.contains("title=Slow") {
                return .respond(status: 429, headers: [("Retry-After", "7")], body: Data())
            }
            let docs: [[String: Any]] = request.query.contains("title=Dune") ? [
                ["key": "/works/OL893415W", "title": "Dune", "author_name": ["Frank Herbert"], "first_publish_year": 1965,
                 "isbn": ["0441172717", "9780441013593"], "cover_i": 11_481_354, "publisher": ["Chilton Books"], "edition_count": 300],
                ["key": "/works/OL9W", "title": "Dune Messiah", "author_name": ["Frank Herbert"], "isbn": ["0399128964"]],
            ] : []
            return OpenLibraryStandIn.search(docs, fields: OpenLibraryStandIn.fields(request.query))
        }
        let search = BookSearch(settings: BookServiceSettings(openLibraryURL: openLibrary.baseURL, timeout: StandInTimeout.seconds), postgres: cluster.postgres)

        let found = try await search.candidates(title: "Dune (Dune, #1)", author: "Herbert, Frank", limit: 3)
        #expect(found.requests == 1)
        #expect(found.candidates == [
            BookCandidate(title: "Dune", authors: ["Frank Herbert"], year: 1965, isbn13: "9780441013593", openLibraryKey: "/works/OL893415W",
                          coverID: 11_481_354, publisher: "Chilton Books"),
            BookCandidate(title: "Dune Messiah", authors: ["Frank Herbert"], isbn13: "9780399128967", openLibraryKey: "/works/OL9W"),
        ])
        let asked = try #require(openLibrary.requests.first)
        #expect(asked.query == "title=Dune&author=Frank%20Herbert&fields=\(BookSearch.fields)&limit=3")
        #expect(asked.headers["user-agent"]?.hasPrefix("Reparto/") == true)
        // The same question again, however it was spelled: the cache answers.
        let cached = try await search.candidates(title: "DUNE", author: "Frank Herbert", limit: 3)
        #expect(cached.requests == 0)
        #expect(cached.candidates == found.candidates)
        #expect(openLibrary.requests.count == 1)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM http_cache WHERE cache_key = 'openlibrary:candidates:v1:3:dune|frank herbert'") == 1)
        // Another limit is another question; fewer candidates than asked for come back as they are.
        #expect(try await search.candidates(title: "Dune", author: "Frank Herbert", limit: 1).candidates.map(\.title) == ["Dune"])
        #expect(openLibrary.requests.count == 2)

        // A garbled answer is an error and is not kept; the next ask gets the real one.
        await #expect(throws: BookServiceResponseError.self) { try await search.candidates(title: "Emma", author: nil) }
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM http_cache WHERE cache_key LIKE 'openlibrary:candidates:v1:5:emma|%'") == 0)
        let emma = try await search.candidates(title: "Emma", author: nil)
        #expect(emma.candidates.isEmpty && emma.requests == 1)
        // Slowing down is the service's to ask: "retry at", as the enrich jobs get it.
        await #expect(throws: BookServiceError.rateLimited(service: "openlibrary", status: 429, retryAfter: 7)) {
            try await search.candidates(title: "Slow", author: nil)
        }
        // A title without letters asks nothing.
        let nothing = try await search.candidates(title: "???", author: "Someone")
        #expect(nothing.candidates.isEmpty && nothing.requests == 0)
        #expect(openLibrary.requests.count == 5)
        openLibrary.stop()
        await cluster.shutdown()
    }

    @Test func theCLIListsAcceptsAndRejectsWithOneLineErrors() async throws {
        let cluster = try await TestCluster.make()
        let postgres = cluster.postgres
        let known = try await Self.add([Self.dune], on: postgres)[0].id
        let duneItem = try await Self.open("DUNE", nil, reference: "photo 1, spine 1", candidates: [Self.dune, Self.messiah], on: postgres)
        let roadItem = try await Self.open("The Road", "Cormac McCarthy", reference: "photo 1, spine 2", candidates: [Self.road], on: postgres)
        let environment = try cluster.processEnvironment()
        func reparto(_ arguments: String...) async throws -> RepartoProcess.Output {
            try await RepartoProcess.run(["books", "review"] + arguments, environment: environment)
        }
        func fails(_ arguments: String..., saying message: String) async throws {
            let output = try await RepartoProcess.run(["books", "review"] + arguments, environment: environment)
            #expect(output.status != 0, "\(arguments)")
            let lines = output.stderr.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n")
            #expect(lines == ["Error: \(message)"], "\(arguments): \(output.stderr)")
            #expect(output.stdout.isEmpty)
        }
        let duneID = String(duneItem.uuidString.lowercased().prefix(8))
        let roadID = String(roadItem.uuidString.lowercased().prefix(8))

        let list = try await reparto()
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(list.stdout)")
        #expect(lines[0].hasPrefix("ID        REFERENCE         AS READ"))
        #expect(lines[1].hasPrefix("\(duneID)  photo 1, spine 1  DUNE"))
        #expect(lines[1].contains("Dune / Frank Herbert (1965) (+1 more)  0.84   title equal; no author read;"))
        #expect(lines[2].hasPrefix("\(roadID)  photo 1, spine 2  The Road / Cormac McCarthy"))
        #expect(lines[2].contains("0.50   title equal; authors disagree: read Cormac McCarthy, the candidate is by Jack London"))
        let json = try await reparto("list", "--json")
        #expect(json.status == 0, "\(json.stderr)")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let items = try decoder.decode([BookReview].self, from: Data(json.stdout.utf8))
        #expect(items.map(\.id) == [duneItem, roadItem])
        #expect(items[0].candidates.count == 2)

        // Bad input: one line each, a non-zero exit, nothing decided.
        try await fails("accept", duneID, saying: "give --candidate N (0 is the best candidate) or --as-read")
        try await fails("accept", duneID, "--candidate", "0", "--as-read", saying: "give either --candidate N or --as-read, not both")
        try await fails("accept", duneID, "--candidate", "2", saying: "review \(duneID) has 2 candidates (0 to 1), not 2")
        try await fails("accept", "0a1b", "--candidate", "0",
                        saying: "'0a1b' is not a review id: give the whole id or at least its first 8 hex digits")
        try await fails("reject", "ffffffff", saying: "no review id starts with ffffffff")
        try await fails("list", "--limit", "0", saying: "--limit must be at least 1")
        #expect(try await BookReviewClient(postgres: postgres).list().count == 2)

        let accept = try await reparto("accept", duneID.uppercased(), "--candidate", "0")
        #expect(accept.status == 0, "\(accept.stderr)")
        #expect(accept.stdout == "accepted \(duneID) (photo 1, spine 1: DUNE): catalog book \(known.uuidString.lowercased())\n")
        try await fails("accept", duneID, "--candidate", "0", saying: "review \(duneID) is already accepted")
        let reject = try await reparto("reject", roadItem.uuidString, "--json")
        #expect(reject.status == 0, "\(reject.stderr)")
        #expect(try decoder.decode(BookReview.self, from: Data(reject.stdout.utf8)).state == "rejected")
        try await fails("reject", roadID, saying: "review \(roadID) is already rejected")
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM books") == 1)

        let empty = try await reparto()
        #expect(empty.stdout == "no open reviews\n")
        let all = try await reparto("--all")
        #expect(all.status == 0, "\(all.stderr)")
        let allLines = all.stdout.split(separator: "\n").map(String.init)
        #expect(allLines.count == 3)
        #expect(allLines[0].hasPrefix("ID        STATE     REFERENCE"))
        #expect(allLines[1].hasPrefix("\(duneID)  accepted  photo 1, spine 1"))
        #expect(allLines[2].hasPrefix("\(roadID)  rejected  photo 1, spine 2"))

        // Accepting the reading adds a book and enqueues its enrichment (unless --no-enrich).
        let unknown = try await Self.open("The Unwritten Book", "Author, A. N.", reference: "photo 2, spine 1", candidates: [], on: postgres)
        let asRead = try await reparto("accept", unknown.uuidString, "--as-read")
        #expect(asRead.status == 0, "\(asRead.stderr)")
        #expect(asRead.stdout.hasPrefix("accepted \(unknown.uuidString.lowercased().prefix(8)) (photo 2, spine 1: The Unwritten Book / Author, A. N.): catalog book "))
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM books b JOIN book_authors ba ON ba.book_id = b.id JOIN authors a ON a.id = ba.author_id WHERE b.title = 'The Unwritten Book' AND a.name = 'A. N. Author'") == 1)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE kind = $1", [BookEnrichJob.kind]) == 1)
        await cluster.shutdown()
    }
}
