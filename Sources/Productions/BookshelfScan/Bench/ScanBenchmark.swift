import Foundation
import Logging
import Postgres
import ProductionKit
import RepartoRuntime
import Speech
import Threading

/// `reparto bench scan`: a scan of `photos` synthetic shelf photos holding `spines` books
/// (`misread` of them misread), in a database of its own, with `workers` `reparto worker`
/// processes and one `reparto coordinator` (children of this process); the vision stand-in answers
/// each photo in `latency` seconds under the limit `provider:openai` of `rate` requests a second.
/// Reports the time against the ideal the limit sets, the correct matches and the wrong books.
struct ScanBenchmark: Sendable {
    var photos = 20
    var spines = 300
    var misread = 30
    var latency = 1.0
    var rate = 5.0
    var burst = 1.0
    var workers = 2
    var concurrency = 8
    /// Extra `reparto` arguments for the children (`--env-file`, `--amqp-url`).
    var childArguments: [String] = []

    struct Report: Sendable {
        var photos: Int, spines: Int, misread: Int
        var latency: Double, rate: Double
        var total: Double
        var readSpan: Double
        /// First to last read admitted: (photos − burst) / rate at best.
        var admitted: Double
        var stages: [(kind: String, start: Double, end: Double)]
        var ideal: Double
        var correct: Int, wrong: Int, toReview: Int
        var visionCalls: Int, searches: Int
        var state: String

        var text: String {
            """
            scan: \(photos) photos, \(spines) spines (\(misread) misread), the stand-in answering in \(latency) s under \(rate)/s: \(state)
              time        \(String(format: "%.2f", total)) s submit to finish; reads \(String(format: "%.2f", readSpan)) s; ideal \(String(format: "%.2f", ideal)) s \
            (\(String(format: "%.0f", 100 * total / max(ideal, 0.001))) % of it; reads alone \(String(format: "%.0f", 100 * readSpan / max(ideal, 0.001))) %)
              admitted    reads \(String(format: "%.2f", admitted)) s first to last (the limit: \(String(format: "%.2f", Double(photos - 1) / rate)) s); \
            stages \(stages.map { "\($0.kind.split(separator: ".").last ?? "") \(String(format: "%.2f", $0.start))–\(String(format: "%.2f", $0.end))" }.joined(separator: ", "))
              matches     \(correct)/\(spines) correct (\(String(format: "%.1f", 100 * Double(correct) / Double(max(spines, 1)))) %), \(wrong) wrong books, \(toReview) to review
              requests    \(visionCalls) vision, \(searches) Open Library searches

            """
        }
    }

    /// The shortest time the limit allows: the reads after the burst at the limit's rate, then the
    /// last one's answer.
    static func ideal(photos: Int, rate: Double, burst: Double, latency: Double) -> Double {
        max(0, Double(photos) - burst) / rate + latency
    }

    func run(admin: PostgresConfiguration, logger: Logger) async throws -> Report {
        let fixtures = ScanBenchFixtures.make(photos: photos, spines: spines, misread: misread)
        // The stand-in's server logs only what is critical (stopping it is not an error).
        var quiet = logger
        quiet.logLevel = .critical
        let standIn = try await ScanBenchStandIn.start(fixtures: fixtures, latency: latency, logger: quiet)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-bench-scan-\(UUID().uuidString.prefix(8))")
        let name = "reparto_bench_scan_\(UUID().uuidString.prefix(8).lowercased())"
        let namespace = name
        var configuration = admin
        configuration.database = name
        configuration.sessionSettings[ClusterSettings.namespaceSetting] = namespace
        let adminClient = PostgresClient(configuration: admin, maxConnections: 1, logger: logger)
        _ = try await adminClient.query("CREATE DATABASE \(name)")  // hex digits and letters: a safe identifier
        await adminClient.shutdown()
        let postgres = PostgresClient(configuration: configuration, maxConnections: 4, logger: logger)
        var children: [Process] = []
        do {
            let report = try await measure(fixtures: fixtures, standIn: standIn, folder: folder, configuration: configuration,
                                           namespace: namespace, postgres: postgres, children: &children, logger: logger)
            await ChildProcess.stop(children)
            await cleanUp(postgres: postgres, admin: admin, name: name, folder: folder, standIn: standIn)
            return report
        } catch {
            await ChildProcess.stop(children)
            await cleanUp(postgres: postgres, admin: admin, name: name, folder: folder, standIn: standIn)
            throw error
        }
    }

    private func measure(fixtures: ScanBenchFixtures, standIn: ScanBenchStandIn, folder: URL, configuration: PostgresConfiguration,
                         namespace: String, postgres: PostgresClient, children: inout [Process], logger: Logger) async throws -> Report {
        let assets = folder.appendingPathComponent("assets")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["OPENAI_BASE_URL"] = "\(standIn.baseURL)/v1"
        environment["OPENAI_API_KEY"] = "bench-key"
        environment.removeValue(forKey: "OPENAI_API_KEY_FILE")
        environment["OPENAI_VISION_MODEL"] = "bench-vision"
        environment["REPARTO_OPENLIBRARY_URL"] = standIn.baseURL
        environment["REPARTO_ASSETS"] = assets.path
        if let password = configuration.password { environment["REPARTO_DATABASE_PASSWORD"] = password }
        let common = ["--namespace", namespace, "--database-url", configuration.childProcessURL, "--log-level", ProcessInfo.processInfo.environment["REPARTO_BENCH_CHILD_LOG"] ?? "warning"] + childArguments
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let migrate = try ChildProcess.start((executable, ["migrate"] + common), environment: environment, inherit: true)
        guard await ChildProcess.exitStatus(migrate) == 0 else {
            throw ScanBenchError("reparto migrate failed")
        }
        try await JobClient(postgres: postgres).setLimit(LimitSpec(name: "provider:openai", rate: rate, burst: burst))
        children.append(try ChildProcess.start((executable, ["coordinator"] + common), environment: environment, inherit: true))
        for _ in 0..<workers {
            children.append(try ChildProcess.start((executable, ["worker", "--concurrency", "\(concurrency)", "--heartbeat", "1",
                                                                  "--drain-timeout", "5"] + common), environment: environment, inherit: true))
        }
        let count = fixtures.photos.count
        let files = try await BlockingWork.run { try Self.makePhotos(count: count, in: folder) }
        let scans = BookshelfScanClient(postgres: postgres, assetsRoot: assets)
        let id = try await scans.submit(photos: files, options: .init(visionProvider: "openai", name: "bench scan"))
        guard let results = try await scans.awaitResults(id, timeout: 300, logger: logger, onProgress: { _ in }) else {
            throw ScanBenchError("the scan has no results")
        }
        let total = try await BenchmarkReads.productionSeconds(id, on: postgres)
        let spans = try await BenchmarkReads.stageSpans(id, on: postgres)
        let read = spans.first { $0.kind == ReadShelfJob.kind }
        let starts = try await BenchmarkReads.starts(production: id, kind: ReadShelfJob.kind, on: postgres).seconds
        var correct = 0, wrong = 0, review = 0
        let isbns = try await postgres.query("""
            SELECT s.photo, s.position, s.outcome, b.isbn13 FROM bookshelf_spines s LEFT JOIN books b ON b.id = s.book_id
            WHERE s.production_id = $1
            """, [id])
        for row in isbns {
            guard let photo = row.int("photo"), let position = row.int("position"), photo < fixtures.photos.count,
                  (1...fixtures.photos[photo].count).contains(position) else { continue }
            let truth = fixtures.books[fixtures.photos[photo][position - 1].book].isbn13
            switch row.string("outcome") {
            case "owned"?, "added"?: if row.string("isbn13") == truth { correct += 1 } else { wrong += 1 }
            default: review += 1
            }
        }
        return Report(photos: fixtures.photos.count, spines: fixtures.books.count, misread: misread, latency: latency, rate: rate, total: total,
                      readSpan: read.map { $0.end - $0.start } ?? 0, admitted: (starts.last ?? 0) - (starts.first ?? 0), stages: spans,
                      ideal: Self.ideal(photos: fixtures.photos.count, rate: rate, burst: burst, latency: latency),
                      correct: correct, wrong: wrong, toReview: review, visionCalls: standIn.visionRequestInstants.count,
                      searches: standIn.searchCount, state: results.state)
    }

    /// One JPEG per photo, its width saying which (``ScanBenchFixtures/width(ofPhoto:)``).
    @available(*, noasync)
    private static func makePhotos(count: Int, in folder: URL) throws -> [URL] {
        guard let ffmpeg = FFmpegTool.locate() else { throw ScanBenchError("ffmpeg is not installed") }
        return try (0..<count).map { index in
            let file = folder.appendingPathComponent("shelf-\(index + 1).jpg")
            _ = try ffmpeg.run(["-v", "error", "-f", "lavfi", "-i",
                                "color=c=0x\(String(format: "%06x", (index * 0x2F3A5B) & 0xFFFFFF)):s=\(ScanBenchFixtures.width(ofPhoto: index))x240",
                                "-frames:v", "1", "-y", file.path])
            return file
        }
    }

    private func cleanUp(postgres: PostgresClient, admin: PostgresConfiguration, name: String, folder: URL, standIn: ScanBenchStandIn) async {
        await postgres.shutdown()
        let adminClient = PostgresClient(configuration: admin, maxConnections: 1)
        _ = try? await adminClient.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        await adminClient.shutdown()
        try? FileManager.default.removeItem(at: folder)
        standIn.stop()
    }

}
