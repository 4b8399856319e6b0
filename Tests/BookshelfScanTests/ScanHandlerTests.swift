import BookCatalog
import BookImport
@testable import BookshelfScan
import Composition
import Foundation
import Postgres
import ProductionKit
import RepartoConfiguration
import RepartoTestSupport
import RepartoTesting
import Speech
import Testing
import Threading

/// The scan's handlers, one job at a time through RepartoTesting, against a vision stand-in that
/// speaks OpenAI's and Anthropic's wire formats and an Open Library stand-in.
@Suite(.timeLimit(.minutes(3)))
struct ScanHandlerTests {
    /// A scan of one photo (made by ffmpeg, `orientation` spliced in as a phone writes it) in a
    /// database of its own.
    struct Scan {
        var database: TestDatabase
        var production: UUID
        /// The photo as stored, and the SHA-256 of the upright image the read job sends.
        var photoSHA256: String
        var sentSHA256: String
    }

    static func scan(orientation: Int? = nil) async throws -> Scan {
        let lines = try Kinds.migrationLines(ConfigurationValues(environment: [:]),
                                             runtimeDirectory: TestEnvironment.repositoryRoot.appendingPathComponent("migrations"))
        let database = try await TestDatabase.create(admin: try PostgresConfiguration(url: TestEnvironment.databaseURL()), lines: lines)
        do {
            let ffmpeg = try #require(FFmpegTool.locate(), "ffmpeg is needed (scripts/services installs it)")
            let folder = database.assetsRoot.appendingPathComponent("incoming")
            let file = folder.appendingPathComponent("shelf.jpg")
            try await BlockingWork.run {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                _ = try ffmpeg.run(["-v", "error", "-f", "lavfi", "-i", "color=c=0x336699:s=64x32", "-frames:v", "1", "-y", file.path])
                if let orientation { try Data(PhotoBytes.withOrientation(Array(try Data(contentsOf: file)), orientation)).write(to: file) }
            }
            let production = try await BookshelfScanClient(postgres: database.postgres, assetsRoot: database.assetsRoot)
                .submit(photos: [file], options: .init(visionProvider: "openai"))
            let bytes = try Data(contentsOf: file)
            let upright = try await BlockingWork.run {
                try PhotoNormalizer(ffmpeg: ffmpeg).upright(file, photo: try PhotoFile.inspect(Array(bytes), name: "shelf.jpg"), name: "shelf.jpg")
            }
            return Scan(database: database, production: production, photoSHA256: VisionStandIn.sha256Hex(bytes),
                        sentSHA256: VisionStandIn.sha256Hex(upright))
        } catch {
            await database.drop()
            throw error
        }
    }

    static func registry(_ database: TestDatabase, vision: VisionStandIn? = nil, openLibrary: String = "http://127.0.0.1:9") -> JobRegistry {
        var variables = ["OPENAI_API_KEY": "sk-test", "OPENAI_VISION_MODEL": "test-vision"]
        if let vision { variables["OPENAI_BASE_URL"] = "\(vision.baseURL)/v1" }
        let registry = JobRegistry()
        BookshelfScanKinds.register(in: registry, environment: ProductionEnvironment(
            assetsRoot: database.assetsRoot, configuration: ConfigurationValues(environment: variables), postgres: database.postgres),
            bookServices: BookServiceSettings(openLibraryURL: openLibrary, googleBooksURL: "http://127.0.0.1:9"))
        return registry
    }

    static let twoSpines = Data("""
        {"spines":[{"title":"Dune","author":"Frank Herbert","confidence":0.95,"position":1},
                   {"title":"Emma","author":"Jane Austen","confidence":0.9,"position":2}]}
        """.utf8)

    static func read(_ scan: Scan, vision: VisionStandIn) -> ReadShelfJob {
        ReadShelfJob(productionID: scan.production, photo: 0, visionProvider: "openai", model: nil, fresh: nil)
    }

    @Test func anAnswerThatDoesNotValidateIsAskedAgainOnceWithWhatWasWrong() async throws {
        let scan = try await Self.scan()
        let vision = try VisionStandIn(answers: [scan.sentSHA256: [.object(Data(#"{"spines":[{"title":""}]}"#.utf8)), .object(Self.twoSpines)]])
        let tester = JobTester(registry: Self.registry(scan.database, vision: vision), postgres: scan.database.postgres)
        let run = try await tester.run(Self.read(scan, vision: vision)) { transaction in
            (try transaction.count("SELECT jsonb_array_length(spines) FROM bookshelf_photos WHERE state = 'read'"),
             try transaction.count("SELECT count(*)::int FROM generation_usage WHERE capability = 'vision' AND NOT reused"))
        }
        #expect(run.succeeded, "\(run.error ?? "")")
        #expect(run.inspected.0 == 2)
        #expect(run.inspected.1 == 2, "both calls are in the ledger")
        #expect(try run.result(as: ReadShelfJob.Result.self).calls == 2)
        #expect(vision.requests.map(\.correction) == [false, true])
        #expect(vision.requests.allSatisfy { $0.imageDigests == [scan.sentSHA256] && $0.rejection == nil })
        vision.stop()
        await scan.database.drop()
    }

    @Test func twoAnswersThatDoNotValidateFailThePhotoWithTheReason() async throws {
        let scan = try await Self.scan()
        let vision = try VisionStandIn(answers: [scan.sentSHA256: [.malformed("Here are the books I see: Dune, Emma.")]])
        let tester = JobTester(registry: Self.registry(scan.database, vision: vision), postgres: scan.database.postgres)
        let run = try await tester.run(Self.read(scan, vision: vision)) { transaction in
            try transaction.count("SELECT count(*)::int FROM bookshelf_photos WHERE state = 'read'")
        }
        #expect(run.state == .dead || run.state == .failed)
        #expect(run.inspected == 0)
        #expect(vision.requests.count == 2)
        vision.stop()
        await scan.database.drop()
    }

    @Test func aRefusalIsPermanentAndA429WaitsForItsRetryAfter() async throws {
        let scan = try await Self.scan()
        let refusing = try VisionStandIn(answers: [scan.sentSHA256: [.refusal("I can't help with identifying that.")]])
        let refused = try await JobTester(registry: Self.registry(scan.database, vision: refusing), postgres: scan.database.postgres)
            .run(Self.read(scan, vision: refusing))
        #expect(refused.state == .dead)
        #expect(refused.error?.contains("identifying") == true, "\(refused.error ?? "")")
        refusing.stop()

        let limited = try VisionStandIn(answers: [scan.sentSHA256: [.rateLimited(retryAfter: 7)]])
        let waited = try await JobTester(registry: Self.registry(scan.database, vision: limited), postgres: scan.database.postgres)
            .run(Self.read(scan, vision: limited))
        // Rescheduled for after Retry-After, the attempt not counted.
        #expect(waited.state == .queued, "\(waited.state) \(waited.error ?? "")")
        limited.stop()
        await scan.database.drop()
    }

    @Test func aPhotoReadBeforeIsReusedWithoutAsking() async throws {
        let scan = try await Self.scan()
        let key = ReadShelfJob.readKey(sha256: scan.photoSHA256, provider: "openai", model: "test-vision")
        _ = try await scan.database.postgres.query("""
            INSERT INTO bookshelf_reads (read_key, provider, model, spines) VALUES ($1, 'openai', 'test-vision',
              '[{"title":"Dune","author":"Frank Herbert","confidence":0.9,"position":1}]')
            """, [key])
        let vision = try VisionStandIn()
        let run = try await JobTester(registry: Self.registry(scan.database, vision: vision), postgres: scan.database.postgres)
            .run(Self.read(scan, vision: vision)) { transaction in
                try transaction.count("SELECT count(*)::int FROM bookshelf_photos WHERE reused AND state = 'read'")
            }
        #expect(run.succeeded, "\(run.error ?? "")")
        #expect(try run.result(as: ReadShelfJob.Result.self).reused)
        #expect(run.inspected == 1)
        #expect(vision.requests.isEmpty)
        vision.stop()
        await scan.database.drop()
    }

    @Test func thePhotoSentIsUpright() async throws {
        let scan = try await Self.scan(orientation: 6)
        let vision = try VisionStandIn(answers: [scan.sentSHA256: [.object(Self.twoSpines)]])
        let run = try await JobTester(registry: Self.registry(scan.database, vision: vision), postgres: scan.database.postgres)
            .run(Self.read(scan, vision: vision))
        #expect(run.succeeded, "\(run.error ?? "")")
        #expect(vision.requests.first?.imageDigests == [scan.sentSHA256])
        vision.stop()
        await scan.database.drop()
    }

    // MARK: matching

    /// An Open Library stand-in: `/search.json` answers from `books` (title and author words must
    /// meet), with only the fields `fields=` names.
    static func openLibrary(_ books: [(title: String, author: String, isbn: String)]) throws -> FakeHTTPServer {
        try FakeHTTPServer { request in
            guard request.path == "/search.json" else { return .respond(status: 404, headers: [], body: Data()) }
            let query = Dictionary(request.query.split(separator: "&").compactMap { pair -> (String, String)? in
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { return nil }
                return (String(parts[0]), (String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""))
            }, uniquingKeysWith: { first, _ in first })
            let title = (query["title"] ?? "").lowercased()
            let docs = books.filter { $0.title.lowercased().contains(title) || title.contains($0.title.lowercased()) }.map { book -> [String: Any] in
                var doc: [String: Any] = ["key": "/works/OL1W", "title": book.title, "author_name": [book.author], "first_publish_year": 1965]
                if query["fields"]?.contains("isbn") == true { doc["isbn"] = [book.isbn] }
                return doc
            }
            let body = try! JSONSerialization.data(withJSONObject: ["numFound": docs.count, "start": 0, "docs": docs])
            return .respond(status: 200, headers: [("Content-Type", "application/json")], body: body)
        }
    }

    /// Marks the scan's photo read with `spines`.
    static func markRead(_ scan: Scan, _ spines: [ShelfSpine]) async throws {
        _ = try await scan.database.postgres.query("UPDATE bookshelf_photos SET state = 'read', spines = $2::jsonb WHERE production_id = $1",
                                                   [scan.production, String(decoding: try JSONEncoder().encode(spines), as: UTF8.self)])
    }

    @Test func aSureMatchIsAddedWithItsCoverAskedForABookTheReaderHasIsRecognisedAndADoubtfulOneWaits() async throws {
        let scan = try await Self.scan()
        let library = try Self.openLibrary([("Dune", "Frank Herbert", "9780441013593"), ("Emma", "Jane Austen", "9780141439587")])
        // The reader already has Emma.
        let emma = try await scan.database.postgres.withConnection { connection in
            try CatalogBooks.add(BookCandidate(title: "Emma", authors: ["Jane Austen"], isbn13: "9780141439587"), on: connection).id
        }
        try await Self.markRead(scan, [
            ShelfSpine(title: "Dune", author: "Frank Herbert", confidence: 0.95, position: 1),
            ShelfSpine(title: "Emma", author: "Jane Austen", confidence: 0.9, position: 2),
            // The same title by someone else: never merged into Jane Austen's.
            ShelfSpine(title: "Emma", author: "Emma Donoghue", confidence: 0.9, position: 3),
        ])
        let tester = JobTester(registry: Self.registry(scan.database, openLibrary: library.baseURL), postgres: scan.database.postgres)
        let run = try await tester.run(MatchShelfJob(productionID: scan.production, photo: 0)) { transaction in
            try transaction.rows("SELECT position, outcome, book_id::text AS book FROM bookshelf_spines ORDER BY position")
                .map { "\($0.int("position") ?? 0):\($0.string("outcome") ?? ""):\($0.string("book") ?? "-")" }
        }
        #expect(run.succeeded, "\(run.error ?? "")")
        let outcomes = run.inspected
        #expect(outcomes.count == 3)
        #expect(outcomes[0].hasPrefix("1:added:"))
        #expect(outcomes[1] == "2:owned:\(emma.uuidString.lowercased())")
        #expect(outcomes[2] == "3:review:-")
        // The added book's details and cover come as an import's do.
        #expect(run.enqueued.map(\.kind) == [BookEnrichJob.kind])
        // Rolled back.
        #expect(try await scan.database.postgres.query("SELECT count(*)::int AS n FROM books").first?.int("n") == 1)
        library.stop()
        await scan.database.drop()
    }
}

extension ScanHandlerTests {
    @Test func aFileThatIsNotAnImageIsOneClearErrorAndCreatesNothing() async throws {
        let scan = try await Self.scan()
        let notes = scan.database.assetsRoot.appendingPathComponent("incoming/notes.jpg")
        try Data("Shelf one: Dune, Emma, Beloved".utf8).write(to: notes)
        let good = scan.database.assetsRoot.appendingPathComponent("incoming/shelf.jpg")
        let client = BookshelfScanClient(postgres: scan.database.postgres, assetsRoot: scan.database.assetsRoot)
        await #expect(throws: ScanError.photo(.notAnImage(notes.path))) {
            _ = try await client.submit(photos: [good, notes], options: .init(visionProvider: "openai"))
        }
        // Only the scan made by the setup exists.
        #expect(try await scan.database.postgres.query("SELECT count(*)::int AS n FROM productions").first?.int("n") == 1)
        await #expect(throws: ScanError.noPhotos) { _ = try await client.submit(photos: [], options: .init(visionProvider: "openai")) }
        await scan.database.drop()
    }
}

extension ScanHandlerTests {
    /// The same reading through Anthropic's Messages API: an image block and a forced tool.
    @Test func aPhotoIsReadThroughAnthropicToo() async throws {
        let scan = try await Self.scan()
        let vision = try VisionStandIn(answers: [scan.sentSHA256: [.object(Self.twoSpines)]])
        let registry = JobRegistry()
        BookshelfScanKinds.register(in: registry, environment: ProductionEnvironment(
            assetsRoot: scan.database.assetsRoot,
            configuration: ConfigurationValues(environment: ["ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": vision.baseURL,
                                                             "ANTHROPIC_VISION_MODEL": "test-vision"]),
            postgres: scan.database.postgres))
        let run = try await JobTester(registry: registry, postgres: scan.database.postgres)
            .run(ReadShelfJob(productionID: scan.production, photo: 0, visionProvider: "anthropic", model: nil, fresh: nil)) { transaction in
                try transaction.count("SELECT jsonb_array_length(spines) FROM bookshelf_photos WHERE state = 'read'")
            }
        #expect(run.succeeded, "\(run.error ?? "")")
        #expect(run.inspected == 2)
        #expect(vision.requests.map(\.format) == [.anthropic])
        #expect(vision.requests.first?.imageDigests == [scan.sentSHA256])
        vision.stop()
        await scan.database.drop()
    }
}
