import ProductionKit
import AMQP
import BookImport
import Foundation
import RepartoRuntime
import Logging
import Postgres
import Threading

/// `reparto bench import`: a generated Goodreads export imported and enriched against an
/// unthrottled Open Library stand-in by a coordinator and `workers` worker processes on a database
/// of the benchmark's own; then, with `rate`, a second export of other books under a cluster-wide
/// limit, to compare the achieved request rate with it.
///
/// Measured: seconds from submission to the finished production, books a minute (and that
/// against the phone app's 100), each worker's peak RSS (`VmHWM`), requests sent.
public struct ImportBenchmark: Sendable {
    public var books: Int
    public var workers: Int
    public var concurrency: Int
    public var booksPerJob: Int
    /// Requests a second for the limited run (nil: skip it).
    public var rate: Double?
    public var limitedBooks: Int
    public var timeout: Double

    public init(books: Int = 1500, workers: Int = 2, concurrency: Int = 4, booksPerJob: Int = 10, rate: Double? = 10,
                limitedBooks: Int = 300, timeout: Double = 600) {
        (self.books, self.workers, self.concurrency, self.booksPerJob, self.rate, self.limitedBooks, self.timeout)
            = (books, workers, concurrency, booksPerJob, rate, limitedBooks, timeout)
    }

    /// One import's figures.
    public struct Run: Sendable {
        public var books: Int
        public var seconds: Double
        public var requests: Int
        public var enriched: Int
        public var state: String
        /// Requests a second between the first and the last request.
        public var requestRate: Double
        public var booksPerMinute: Double { seconds > 0 ? Double(books) / seconds * 60 : 0 }
    }

    public func run(admin: PostgresConfiguration, amqp: AMQPConfiguration, logger: Logger, report: (String) -> Void) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-bench-import-\(SpeechClusterBench.hex(8))")
        let assets = work.appendingPathComponent("assets")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var quiet = logger
        quiet.logLevel = .critical  // the stand-in's shutdown on cancellation is not news
        let standIn = try await BookServiceStandIn.start(logger: quiet)
        defer { standIn.stop() }
        let namespace = "benchimport_\(SpeechClusterBench.hex(8))"
        let database = try await BenchDatabase.create(admin: admin, namespace: namespace, logger: logger)
        var environment = ProcessInfo.processInfo.environment
        environment["REPARTO_ASSETS"] = assets.path
        environment["REPARTO_OPENLIBRARY_URL"] = standIn.baseURL
        environment[BookServiceSettings.googleBooksKeyVariable] = nil
        if let password = database.configuration.password { environment["REPARTO_DATABASE_PASSWORD"] = password }
        let common = ["--namespace", namespace, "--database-url", database.url, "--log-level", "warning"]
        var children: [Process] = []
        do {
            children.append(try ChildProcess.start((SpeechClusterBench.executable.path, ["coordinator"] + common), environment: environment))
            for _ in 0..<workers {
                children.append(try ChildProcess.start((SpeechClusterBench.executable.path,
                    ["worker", "--queues", BookParseJob.queue, "--concurrency", "\(concurrency)", "--prefetch", "\(concurrency * 2)",
                     "--heartbeat", "1"] + common), environment: environment))
            }
            let client = BookImportClient(postgres: database.postgres, assetsRoot: assets)
            let full = try await importOnce(client, standIn: standIn, books: books, first: 100_000_000, work: work,
                                            booksPerJob: booksPerJob, database: database, logger: logger)
            let rss = children.dropFirst().map { Self.peakRSS($0.processIdentifier) }
            var lines = [String(format: "import: %d books (%d rows) in %.2f s: %.0f books/min, %.1f× the app's 100/min; %d enriched; %d requests (%.0f/s); state %@",
                                full.books, full.books + full.books / 33 + 1, full.seconds, full.booksPerMinute, full.booksPerMinute / 100,
                                full.enriched, full.requests, full.requestRate, full.state)]
            lines.append("worker peak RSS: " + rss.map { String(format: "%.1f MB", Double($0) / 1_048_576) }.joined(separator: ", "))
            if let rate {
                // Each book is two requests (edition, cover); one book a job, so the limit's rate in
                // jobs a second is half the request rate. A burst of one second's jobs lets starts
                // that come back late (relay, claim) catch up instead of losing their slot.
                try await JobClient(postgres: database.postgres).setLimit(
                    LimitSpec(name: BookEnrichJob.defaultLimit, rate: rate / 2, burst: max(1, rate / 2)))
                let limited = try await importOnce(client, standIn: standIn, books: limitedBooks, first: 200_000_000, work: work,
                                                   booksPerJob: 1, database: database, logger: logger)
                lines.append(String(format: "limited: %d books under %.0f requests/s: %.2f requests/s achieved (%.1f%% of the limit), %.1f s; state %@",
                                    limited.books, rate, limited.requestRate, 100 * limited.requestRate / rate, limited.seconds, limited.state))
            }
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

    private func importOnce(_ client: BookImportClient, standIn: BookServiceStandIn, books: Int, first: Int, work: URL,
                            booksPerJob: Int, database: BenchDatabase, logger: Logger) async throws -> Run {
        let file = work.appendingPathComponent("export-\(first).csv")
        try SyntheticLibrary.export(books: books, first: first).text.write(to: file, atomically: true, encoding: .utf8)
        let before = standIn.requestCount
        let start = ContinuousClock.now
        let id = try await client.submit(file: file, options: .init(booksPerJob: booksPerJob))
        _ = try await JobClient(postgres: database.postgres).awaitProduction(id, timeout: timeout, logger: logger)
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let results = try await client.results(id)
        let instants = Array(standIn.requestInstants.dropFirst(before))
        let span = (instants.last ?? 0) - (instants.first ?? 0)
        return Run(books: books, seconds: seconds, requests: instants.count, enriched: results?.enrichment?.enriched ?? 0,
                   state: results?.state ?? "unknown", requestRate: span > 0 ? Double(instants.count - 1) / span : 0)
    }

    /// Peak resident set (`VmHWM`) of a process, in bytes (0 when unreadable).
    static func peakRSS(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return 0 }
        return kb * 1024
    }
}
