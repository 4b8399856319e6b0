import BookImport
@testable import BookshelfScan
import Composition
import Foundation
import ProductionKit
import RepartoConfiguration
import RepartoRuntime
import RepartoTestSupport
import Speech
import Testing
import Synchronization
import Threading

/// A bookshelf scan end to end on the real servers: a worker and a coordinator, a vision stand-in
/// speaking OpenAI's format and an Open Library stand-in. A photo the model refuses fails alone;
/// `retry` reads only that photo again; progress goes stage by stage.
@Suite("bookshelf scan: fan-out, fan-in, retry of only the failed photos", .timeLimit(.minutes(4)))
struct BookshelfScanTests {
    /// Photos of three colours, and the digest of the upright image each one sends.
    static func photos(in folder: URL) async throws -> [(file: URL, sent: String)] {
        let ffmpeg = try #require(FFmpegTool.locate(), "ffmpeg is needed (scripts/services installs it)")
        return try await BlockingWork.run {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return try ["0x224466", "0x664422", "0x446622"].enumerated().map { index, colour in
                let file = folder.appendingPathComponent("shelf-\(index + 1).jpg")
                _ = try ffmpeg.run(["-v", "error", "-f", "lavfi", "-i", "color=c=\(colour):s=96x48", "-frames:v", "1", "-y", file.path])
                let photo = try PhotoFile.inspect(Array(try Data(contentsOf: file)), name: file.lastPathComponent)
                let upright = try PhotoNormalizer(ffmpeg: ffmpeg).upright(file, photo: photo, name: file.lastPathComponent)
                return (file, VisionStandIn.sha256Hex(upright))
            }
        }
    }

    static func spines(_ list: [(String, String)]) -> Data {
        let items = list.enumerated().map { #"{"title":"\#($1.0)","author":"\#($1.1)","confidence":0.9,"position":\#($0 + 1)}"# }
        return Data(#"{"spines":[\#(items.joined(separator: ","))]}"#.utf8)
    }

    @Test func aRefusedPhotoFailsAloneAndItsRetryReadsOnlyIt() async throws {
        let cluster = try await TestCluster.make()
        let photos = try await Self.photos(in: cluster.assetsRoot.appendingPathComponent("incoming"))
        let vision = try VisionStandIn(answers: [
            photos[0].sent: [.object(Self.spines([("Dune", "Frank Herbert"), ("Emma", "Jane Austen")]))],
            // Refused the first time; the retry is answered.
            photos[1].sent: [.refusal("I can't identify items in this image."), .object(Self.spines([("Beloved", "Toni Morrison")]))],
            photos[2].sent: [.object(Self.spines([("Middlemarch", "George Eliot")]))],
        ])
        let library = try FakeHTTPServer { request in
            guard request.path == "/search.json" else { return .respond(status: 404, headers: [], body: Data()) }
            let books = [("Dune", "Frank Herbert", "9780441013593"), ("Emma", "Jane Austen", "9780141439587"),
                         ("Beloved", "Toni Morrison", "9781400033416"), ("Middlemarch", "George Eliot", "9780141439549")]
            let query = request.query.removingPercentEncoding?.replacingOccurrences(of: "+", with: " ") ?? ""
            let docs = books.filter { query.contains("title=\($0.0)") }.map { book -> [String: Any] in
                ["key": "/works/OL\(book.2.suffix(6))W", "title": book.0, "author_name": [book.1], "first_publish_year": 1900,
                 "isbn": [book.2]]
            }
            let body = try! JSONSerialization.data(withJSONObject: ["numFound": docs.count, "start": 0, "docs": docs])
            return .respond(status: 200, headers: [("Content-Type", "application/json")], body: body)
        }
        let registry = JobRegistry()
        BookshelfScanKinds.register(in: registry, environment: ProductionEnvironment(
            assetsRoot: cluster.assetsRoot,
            configuration: ConfigurationValues(environment: ["OPENAI_BASE_URL": "\(vision.baseURL)/v1", "OPENAI_API_KEY": "sk-test",
                                                             "OPENAI_VISION_MODEL": "test-vision"]),
            postgres: cluster.postgres),
            bookServices: BookServiceSettings(openLibraryURL: library.baseURL, googleBooksURL: "http://127.0.0.1:9"))
        // The added books' details and covers: the import's kind, against the same stand-in.
        BookImportKinds.register(in: registry, assetsRoot: cluster.assetsRoot, postgres: cluster.postgres,
                                 services: BookServiceSettings(openLibraryURL: library.baseURL, googleBooksURL: "http://127.0.0.1:9"))
        let worker = cluster.startWorker(registry: registry, concurrency: 4)
        let coordinator = cluster.startCoordinator(plans: BookshelfScanKinds.plans)
        let scans = BookshelfScanClient(postgres: cluster.postgres, assetsRoot: cluster.assetsRoot)

        let id = try await scans.submit(photos: photos.map(\.file), options: .init(visionProvider: "openai", name: "front room"))
        let stages = Mutex<[String]>([])
        let first = try #require(try await scans.awaitResults(id, timeout: 120, logger: cluster.logger) { progress in
            stages.withLock { if $0.last != progress.stage { $0.append(progress.stage) } }
        })
        #expect(first.state == "completed_with_failures")
        #expect(first.photos.map(\.state) == ["matched", "pending", "matched"])
        #expect(first.failures.contains { $0.kind == ReadShelfJob.kind && $0.state == "dead" && ($0.error ?? "").contains("identify") })
        #expect(first.report?.added == 3)
        #expect(stages.withLock { $0 }.contains("match"))

        #expect(try await cluster.client.retry(id) == 1, "only the refused photo's read")
        let second = try #require(try await scans.awaitResults(id, timeout: 120, logger: cluster.logger) { _ in })
        #expect(second.state == "completed", "\(second.failures)")
        #expect(second.photos.map(\.state) == ["matched", "matched", "matched"])
        #expect(second.report == ScanReport(photos: 3, read: 3, reused: 0, spines: 4, owned: 0, added: 4, toReview: 0, unreadable: 0))
        // Each photo sent as many times as it needed: the others were not read again.
        let sent = vision.requests.flatMap(\.imageDigests)
        #expect(photos.map { photo in sent.filter { $0 == photo.sent }.count } == [1, 2, 1])
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM books") == 4)
        // Every answered call is in the ledger under its job; the refusal answered nothing to count.
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM generation_usage WHERE capability = 'vision' AND production_id = $1",
                                        [id]) == 3)
        // The results as `reparto results` prints them.
        let text = ScanText.results(second)
        #expect(text.contains("photo 2: shelf-2.jpg — 1 spines"))
        #expect(text.contains("added to the catalog: Beloved"))

        try await worker.stop()
        try await coordinator.stop()
        vision.stop()
        library.stop()
        await cluster.shutdown()
    }

    /// `reparto scan` with a file that is not an image: one error line, nothing created.
    @Test func scanningAFileThatIsNotAnImageIsOneErrorLineAndCreatesNothing() async throws {
        let cluster = try await TestCluster.make()
        let folder = cluster.assetsRoot.appendingPathComponent("incoming")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let notes = folder.appendingPathComponent("shelf.jpg")
        try Data("Top shelf: Dune, Emma. Bottom shelf: Beloved.".utf8).write(to: notes)
        var environment = try cluster.processEnvironment()
        environment["OPENAI_API_KEY"] = "sk-test"
        let output = try await RepartoProcess.run(["scan", notes.path, "--vision-provider", "openai"], environment: environment)
        #expect(output.status != 0)
        let lines = output.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("Error: ") == true, "stderr: \(output.stderr)")
        #expect(lines.first?.contains("not a JPEG, PNG or WebP image") == true, "stderr: \(output.stderr)")
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM productions") == 0)
        await cluster.shutdown()
    }
}

