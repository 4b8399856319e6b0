import ProductionKit
import Analysis
import Foundation
import Threading
import RepartoRuntime
import Logging
import Postgres
import Screenplay

/// `reparto bench analyze`: a synthetic script of `scenes` scenes analysed under a provider limit
/// of `rate` jobs per second, against whatever answers at `OPENAI_BASE_URL` (bench/analyze/run.sh
/// starts a stand-in answering in 200 ms; the stand-in is not part of this binary).
///
/// In a database of its own, with `workers` `reparto worker` processes and one `reparto coordinator`
/// (children of this process, inheriting its environment): the limit `provider:<text provider>` is
/// set, the analysis submitted with `fresh` (every scene asks the provider), and once it finishes
/// the scene jobs' admission instants (`jobs.started_at`) give the achieved rate from the first to
/// the last, against the limit, and the production's total time against the ideal
/// (``ideal(scenes:rate:burst:roundTrip:)``).
public struct AnalysisBenchmark: Sendable {
    public var scenes: Int
    public var rate: Double
    public var burst: Double
    public var workers: Int
    public var concurrency: Int
    /// The stand-in's answer time, for the ideal.
    public var roundTrip: Double
    public var textProvider: String
    public var embeddingProvider: String
    /// Extra `reparto worker` / `coordinator` arguments (`--env-file`, `--amqp-url`).
    public var childArguments: [String]

    /// - Parameter burst: the limit's burst; nil: the limits' default (``LimitSpec/defaultBurst(rate:)``).
    public init(scenes: Int = 120, rate: Double = 20, burst: Double? = nil, workers: Int = 2, concurrency: Int = 16,
                roundTrip: Double = 0.2, textProvider: String = "openai", embeddingProvider: String = "openai",
                childArguments: [String] = []) {
        (self.scenes, self.rate, self.burst, self.workers, self.concurrency, self.roundTrip) =
            (scenes, rate, burst ?? LimitSpec.defaultBurst(rate: rate), workers, concurrency, roundTrip)
        (self.textProvider, self.embeddingProvider, self.childArguments) = (textProvider, embeddingProvider, childArguments)
    }

    /// What one run measured.
    public struct Report: Sendable, CustomStringConvertible {
        public var scenes: Int
        public var rate: Double
        public var burst: Double
        public var workers: Int
        /// Scene jobs admitted, and seconds from the first admission to the last.
        public var admitted: Int
        public var firstToLast: Double
        /// Seconds from submission to the production's end, and the ideal.
        public var total: Double
        public var ideal: Double
        public var summaries: Int
        public var state: String

        public init(scenes: Int, rate: Double, burst: Double, workers: Int, admitted: Int, firstToLast: Double, total: Double,
                    ideal: Double, summaries: Int, state: String) {
            (self.scenes, self.rate, self.burst, self.workers, self.admitted, self.firstToLast) =
                (scenes, rate, burst, workers, admitted, firstToLast)
            (self.total, self.ideal, self.summaries, self.state) = (total, ideal, summaries, state)
        }

        /// Admissions per second between the first and the last (n − 1 intervals).
        public var achievedRate: Double { firstToLast > 0 ? Double(admitted - 1) / firstToLast : 0 }

        public var description: String {
            String(format: """
                analyze: %d scenes, limit %.0f/s burst %.0f, %d workers: %@, %d summaries
                  scene jobs admitted: %d in %.2f s from first to last = %.2f/s (%.1f %% of the limit)
                  total %.2f s, ideal %.2f s (%.1f %% of the ideal)

                """, scenes, rate, burst, workers, state, summaries, admitted, firstToLast, achievedRate,
                          100 * achievedRate / rate, total, ideal, ideal > 0 ? 100 * total / ideal : 0)
        }
    }

    /// A Fountain script of `scenes` scenes, each a heading, two lines of action and a line of dialogue.
    public static func script(scenes: Int) -> String {
        let places = ["KITCHEN", "STREET", "OFFICE", "ROOF", "STATION", "GARDEN", "HARBOUR", "LIBRARY"]
        let names = ["ANNA", "BOB", "CARLA", "DEV"]
        return (0..<scenes).map { index in
            let place = places[index % places.count], name = names[index % names.count]
            return """
                \(index % 2 == 0 ? "INT." : "EXT.") \(place) \(index + 1) - \(index % 3 == 0 ? "DAY" : "NIGHT")

                \(name) crosses the \(place.lowercased()) for the \(index + 1)th time, carrying a box.
                Somewhere a dog barks twice.

                \(name)
                This is scene \(index + 1), and it is not over yet.

                """
        }.joined(separator: "\n")
    }

    /// The shortest time the limit allows: `(scenes − burst) / rate` for the admissions, then the
    /// last scene's two calls and the synopsis stage's two calls in a row, `roundTrip` each.
    public static func ideal(scenes: Int, rate: Double, burst: Double, roundTrip: Double) -> Double {
        max(0, Double(scenes) - burst) / rate + 4 * roundTrip
    }

    /// How many scenes the analysis finds in `script` (what it would submit one job for each of).
    public static func sceneCount(of script: String) throws -> Int {
        AnalysisScene.scenes(of: try ScreenplayReader.read(Array(script.utf8), fileName: "bench-analyze.fountain")).count
    }

    public func run(admin: PostgresConfiguration, logger: Logger) async throws -> Report {
        let namespace = "benchanalyze_\(SpeechClusterBench.hex(8))"
        let database = try await BenchDatabase.create(admin: admin, namespace: namespace, logger: logger)
        var environment = ProcessInfo.processInfo.environment
        if let password = database.configuration.password { environment["REPARTO_DATABASE_PASSWORD"] = password }
        let common = ["--namespace", namespace, "--database-url", database.url, "--log-level", "warning"] + childArguments
        let worker = ["worker", "--queues", "generate", "--concurrency", "\(concurrency)", "--heartbeat", "1",
                      "--drain-timeout", "5"] + common
        let executable = SpeechClusterBench.executable.path
        var children: [Process] = []
        return try await withCleanup {
            children.append(try ChildProcess.start((executable, ["coordinator"] + common), environment: environment))
            for _ in 0..<workers { children.append(try ChildProcess.start((executable, worker), environment: environment)) }
            return try await measure(database.postgres, logger: logger)
        } cleanup: {
            await ChildProcess.stop(children)
            await database.drop()
        }
    }

    private func measure(_ postgres: PostgresClient, logger: Logger) async throws -> Report {
        try await JobClient(postgres: postgres).setLimit(LimitSpec(name: "provider:\(textProvider)", rate: rate, burst: burst))
        let document = try ScreenplayReader.read(Array(Self.script(scenes: scenes).utf8), fileName: "bench-analyze.fountain")
        let client = AnalysisClient(postgres: postgres)
        let request = AnalysisRequest(sourceName: "bench-analyze.fountain", textProviders: [textProvider],
                                      embeddingProviders: [embeddingProvider], fresh: true, maxAttempts: 3)
        let id = try await client.submit(document: document, request: request, name: "bench analyze \(scenes)")
        guard let results = try await client.awaitResults(id, timeout: 600) else { throw BenchError("the analysis has no results") }
        let progress = try await JobClient(postgres: postgres).progress(id)
        let starts = try await BenchmarkReads.starts(production: id, kind: SceneAnalysisJob.kind, on: postgres).seconds
        let span = try await BenchmarkReads.productionSeconds(id, on: postgres)
        // The first `burst` scenes admitted at once, the rest at the limit, the last one's two calls,
        // then the synopsis stage (logline and synopsis one after the other, characters beside them).
        let ideal = Self.ideal(scenes: scenes, rate: rate, burst: burst, roundTrip: roundTrip)
        return Report(scenes: scenes, rate: rate, burst: burst, workers: workers, admitted: starts.count,
                      firstToLast: (starts.last ?? 0) - (starts.first ?? 0), total: span, ideal: ideal,
                      summaries: results.scenes.filter { $0.summary != nil }.count, state: progress.state)
    }
}
