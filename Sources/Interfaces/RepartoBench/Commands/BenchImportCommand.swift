import ArgumentParser
import CommandOptions
import Foundation

/// `reparto bench import`: a generated export imported and enriched against an unthrottled Open
/// Library stand-in, then under a request-rate limit; see ``ImportBenchmark``.
struct BenchImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Benchmark a book import (parse, enrich) against a local Open Library stand-in.",
        discussion: "Needs the services. Uses a database of its own (created and dropped) and worker processes of this binary.")

    @OptionGroup var cluster: ClusterOptions
    @Option(help: "Books in the generated export.") var books: Int = 1500
    @Option(help: "Worker processes.") var workers: Int = 2
    @Option(help: "Handlers per worker.") var concurrency: Int = 4
    @Option(help: "Books per enrich job.") var booksPerJob: Int = 10
    @Option(help: "Requests a second for the limited run (0: skip it).") var rate: Double = 10
    @Option(help: "Books of the limited run.") var limitedBooks: Int = 300
    @Option(help: "Give up after this many seconds.") var timeout: Double = 600

    func run() async throws {
        var logger = cluster.makeLogger("reparto.bench")
        logger.logLevel = .warning
        let bench = ImportBenchmark(books: books, workers: workers, concurrency: concurrency, booksPerJob: booksPerJob,
                                    rate: rate > 0 ? rate : nil, limitedBooks: limitedBooks, timeout: timeout)
        try await bench.run(admin: try cluster.postgresConfiguration(applicationName: "reparto-bench"),
                            amqp: try cluster.amqpConfiguration(), logger: logger) { print($0) }
    }
}
