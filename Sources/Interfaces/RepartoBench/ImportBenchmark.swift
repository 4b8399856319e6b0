import ProductionKit
import AMQP
import BookImport
import Foundation
import RepartoRuntime
import Logging
import Postgres
import Threading

/// `reparto bench import`: a generated export imported and enriched by a coordinator and
/// `workers` worker processes on a database of the benchmark's own, against an Open Library
/// stand-in that keeps the live service's limits and field rules (``BookServiceStandIn``), under
/// the limits an import against the public Open Library gets by default
/// (``BookServiceSettings/openLibraryLimits(contact:speedup:)``).
///
/// The export holds `books` books with ISBNs and a labelled set of `labelled` rows without
/// (``ImportBenchLabels``), whose true books are known and some of whose searches answer a
/// misleading near-match first. Measured: books a minute against the ideal the limits allow
/// (one API request a book: an edition by ISBN, or a search; covers are fetched by id, which is
/// not limited), the requests the stand-in refused (429, 403), each worker's peak RSS (`VmHWM`),
/// and on the labelled set the correct matches, the wrong-book matches and the rows sent to review.
///
/// `speedup` runs every limit that many times faster on both sides (a run of `--books 300` in a
/// few minutes instead of hours); the ratio to the ideal is what compares.
public struct ImportBenchmark: Sendable {
    public var books: Int
    public var labelled: Int
    public var workers: Int
    public var concurrency: Int
    public var booksPerJob: Int
    public var speedup: Double
    /// Put a contact in the User-Agent (`REPARTO_OPENLIBRARY_CONTACT`): 3 requests a second.
    public var contact: Bool
    /// Seconds; nil: three times the ideal, at least ten minutes.
    public var timeout: Double?

    public init(books: Int = 10_000, labelled: Int = 200, workers: Int = 2, concurrency: Int = 4, booksPerJob: Int = 10,
                speedup: Double = 1, contact: Bool = false, timeout: Double? = nil) {
        (self.books, self.labelled, self.workers, self.concurrency, self.booksPerJob) = (books, labelled, workers, concurrency, booksPerJob)
        (self.speedup, self.contact, self.timeout) = (speedup, contact, timeout)
    }

    /// API requests a second the limits allow.
    public var allowedRate: Double { (contact ? 3 : 1) * speedup }
    /// Books a minute the limits allow: one API request a book.
    public var idealBooksPerMinute: Double { allowedRate * 60 }

    /// What the labelled set came to.
    public struct Labelled: Sendable, Equatable {
        public var rows = 0
        /// Matched to their true book.
        public var correct = 0
        /// Matched to another book (or to any book when the true one is not in Open Library).
        public var wrong = 0
        /// Unmatched: on the review list with the reader's own fields.
        public var review = 0
        public var notFound = 0
        /// Rows expected to match that matched their true book, of those expected to match.
        public var expectedMatches = 0
        public var expectedMatched = 0
    }

    public func run(admin: PostgresConfiguration, amqp: AMQPConfiguration, logger: Logger, report: (String) -> Void) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-bench-import-\(SpeechClusterBench.hex(8))")
        let assets = work.appendingPathComponent("assets")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var quiet = logger
        quiet.logLevel = .critical  // the stand-in's shutdown on cancellation is not news
        let labels = ImportBenchLabels.make(count: labelled)
        let standIn = try await BookServiceStandIn.start(works: labels.works, speedup: speedup, logger: quiet)
        defer { standIn.stop() }
        let namespace = "benchimport_\(SpeechClusterBench.hex(8))"
        let database = try await BenchDatabase.create(admin: admin, namespace: namespace, logger: logger)
        var environment = ProcessInfo.processInfo.environment
        environment["REPARTO_ASSETS"] = assets.path
        environment[BookServiceSettings.openLibraryVariable] = standIn.baseURL
        environment[BookServiceSettings.openLibraryCoversVariable] = standIn.baseURL
        environment[BookServiceSettings.contactVariable] = contact ? "bench@example.org" : nil
        environment[BookServiceSettings.googleBooksKeyVariable] = nil
        if let password = database.configuration.password { environment["REPARTO_DATABASE_PASSWORD"] = password }
        let common = ["--namespace", namespace, "--database-url", database.url, "--log-level", "warning"]
        var children: [Process] = []
        do {
            // The public service's default limits, as an import against it creates them.
            let jobs = JobClient(postgres: database.postgres)
            for spec in BookServiceSettings.openLibraryLimits(contact: contact, speedup: speedup) { try await jobs.setLimit(spec) }
            children.append(try ChildProcess.start((SpeechClusterBench.executable.path, ["coordinator"] + common), environment: environment))
            for _ in 0..<workers {
                children.append(try ChildProcess.start((SpeechClusterBench.executable.path,
                    ["worker", "--queues", BookParseJob.queue, "--concurrency", "\(concurrency)", "--prefetch", "\(concurrency * 2)",
                     "--heartbeat", "1"] + common), environment: environment))
            }
            let file = work.appendingPathComponent("export.csv")
            let export = SyntheticLibrary.export(books: books, first: 100_000_000, labelled: labels.rows)
            try export.text.write(to: file, atomically: true, encoding: .utf8)
            let ideal = Double(books + labels.rows.count) / allowedRate
            let client = BookImportClient(postgres: database.postgres, assetsRoot: assets)
            let start = ContinuousClock.now
            let id = try await client.submit(file: file, options: .init(booksPerJob: booksPerJob))
            _ = try await jobs.awaitProduction(id, timeout: timeout ?? max(600, 3 * ideal), logger: logger)
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let results = try await client.results(id)
            let rss = children.dropFirst().map { Self.peakRSS($0.processIdentifier) }
            let outcome = try await Self.labelled(labels.rows, production: id, postgres: database.postgres)
            let seen = standIn.requests
            let api = seen.filter { $0.kind == "api" }
            let found = books + labels.rows.count
            let perMinute = seconds > 0 ? Double(found) / seconds * 60 : 0
            var lines = [String(format: "import: %d books with ISBN + %d labelled rows without, %d rows, in %.1f s; state %@",
                                books, labels.rows.count, export.rows, seconds, results?.state ?? "unknown")]
            lines.append(String(format: "limits: Open Library API %.3g/s (%@), covers by ISBN 100 per %.0f s; speedup %.3g",
                                allowedRate, contact ? "contact in the User-Agent" : "no contact", 300 / speedup, speedup))
            lines.append(String(format: "throughput: %.1f books/min against the %.1f the limits allow (%.1f%%); ideal %.1f s",
                                perMinute, idealBooksPerMinute, 100 * perMinute / idealBooksPerMinute, ideal))
            lines.append(String(format: "requests: %d API (%d answered 429), %d covers by id, %d covers by ISBN (%d answered 403)",
                                api.count, api.filter { $0.status == 429 }.count, seen.filter { $0.kind == "cover-id" }.count,
                                seen.filter { $0.kind == "cover-isbn" }.count,
                                seen.filter { $0.kind == "cover-isbn" && $0.status == 403 }.count))
            if let e = results?.enrichment {
                lines.append("enrichment: \(e.enriched) enriched (\(e.covers) with a cover), \(e.unmatched) unmatched, \(e.notFound) not found, "
                             + "\(e.failed) failed, \(e.coversPending) covers pending")
            }
            lines.append("worker peak RSS: " + rss.map { String(format: "%.1f MB", Double($0) / 1_048_576) }.joined(separator: ", "))
            lines.append("labelled: \(outcome.rows) rows: \(outcome.correct) matched correctly, \(outcome.wrong) matched to the wrong book, "
                         + "\(outcome.review) sent to review, \(outcome.notFound) not found; "
                         + "\(outcome.expectedMatched) of the \(outcome.expectedMatches) rows a person would match without a doubt matched")
            await ChildProcess.stop(children)
            await database.drop()
            await Self.deleteQueue(namespace: namespace, amqp: amqp)
            report(lines.joined(separator: "\n"))
        } catch {
            await ChildProcess.stop(children)
            await database.drop()
            await Self.deleteQueue(namespace: namespace, amqp: amqp)
            throw error
        }
    }

    /// Each labelled row's book against its truth (`books.identifiers.openlibrary_work`).
    static func labelled(_ rows: [ImportBenchLabels.Row], production: UUID, postgres: PostgresClient) async throws -> Labelled {
        let stored = try await postgres.query("""
            SELECT r.source_id, b.enrich_status, b.identifiers->'openlibrary_work'->>0 AS work
            FROM book_import_rows r JOIN books b ON b.id = r.book_id
            WHERE r.production_id = $1 AND r.source_id LIKE 'L%'
            """, [production])
        var byRow: [String: (status: String?, work: String?)] = [:]
        for row in stored { if let id = row.string("source_id") { byRow[id] = (row.string("enrich_status"), row.string("work")) } }
        var result = Labelled()
        for row in rows {
            guard let (status, work) = byRow[row.sourceID] else { continue }
            result.rows += 1
            if row.expectsMatch { result.expectedMatches += 1 }
            switch status {
            case "enriched":
                let truth = row.truth.map { String($0.split(separator: "/").last ?? "") }
                if let truth, work == truth {
                    result.correct += 1
                    if row.expectsMatch { result.expectedMatched += 1 }
                } else {
                    result.wrong += 1
                }
            case "unmatched": result.review += 1
            default: result.notFound += 1
            }
        }
        return result
    }

    /// The run's queue goes with its namespace (the broker is shared; left behind, every restart
    /// would recover it).
    static func deleteQueue(namespace: String, amqp: AMQPConfiguration) async {
        let queue = JobTopology.queueName(BookParseJob.queue, namespace: namespace)
        _ = try? await BlockingWork.run {
            let connection = try AMQPConnection.connect(amqp)
            defer { connection.close() }
            _ = try? connection.deleteQueue(queue)
        }
    }

    /// Peak resident set (`VmHWM`) of a process, in bytes (0 when unreadable).
    static func peakRSS(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return 0 }
        return kb * 1024
    }
}
