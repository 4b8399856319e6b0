import ArgumentParser
import CommandOptions
import Foundation

/// `reparto bench import`: a generated export imported and enriched against an Open Library
/// stand-in that keeps the live limits and field rules, under the default limits; see
/// ``ImportBenchmark``.
struct BenchImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Benchmark a book import (parse, enrich) against an Open Library stand-in with the live limits.",
        discussion: """
            Needs the services. Uses a database of its own (created and dropped) and worker processes of this binary. \
            At the live limits (1 request a second) 10,000 books take about three hours: --speedup N makes the stand-in's \
            limits and the cluster's N times faster, e.g. --books 300 --labelled 70 --speedup 5.
            """)

    @OptionGroup var cluster: ClusterOptions
    @Option(help: "Books with an ISBN in the generated export.") var books: Int = 10_000
    @Option(help: "Labelled rows without ISBN (true book known, some with misleading near-matches).") var labelled: Int = 200
    @Option(help: "Worker processes.") var workers: Int = 2
    @Option(help: "Handlers per worker.") var concurrency: Int = 4
    @Option(help: "Books per enrich job.") var booksPerJob: Int = 10
    @Option(help: "Run every limit this many times faster, on the stand-in and in the cluster.") var speedup: Double = 1
    @Flag(help: "Put a contact in the User-Agent (REPARTO_OPENLIBRARY_CONTACT): 3 requests a second.") var contact = false
    @Option(help: "Give up after this many seconds (default: three times the ideal, at least 600).") var timeout: Double?

    func validate() throws {
        guard books >= 0, labelled >= 0, books + labelled > 0 else { throw ValidationError("give --books or --labelled above 0") }
        guard speedup > 0, speedup.isFinite, speedup <= 1000 else { throw ValidationError("--speedup must be above 0 and at most 1000") }
        guard (1...100).contains(booksPerJob) else { throw ValidationError("--books-per-job must be between 1 and 100") }
    }

    func run() async throws {
        var logger = cluster.makeLogger("reparto.bench")
        logger.logLevel = .warning
        let bench = ImportBenchmark(books: books, labelled: labelled, workers: workers, concurrency: concurrency, booksPerJob: booksPerJob,
                                    speedup: speedup, contact: contact, timeout: timeout)
        try await bench.run(admin: try cluster.postgresConfiguration(applicationName: "reparto-bench"),
                            amqp: try cluster.amqpConfiguration(), logger: logger) { print($0) }
    }
}
