import ProductionKit
import SpeechJobs
import Dispatch
import Foundation
import RepartoRuntime
import Logging
import Postgres
import Speech
import TableRead

/// `reparto bench speech --cluster`: Reparto against espeak-ng called directly, on the real cluster.
///
/// Every side is a child process, so CPU time is measured the same way for all of them (user +
/// system of the child and of everything it reaped, i.e. the espeak-ng processes):
///
/// - `direct ×1`: a bash loop running `espeak-ng --stdout -v VOICE "line" > n.wav` per line, pinned to CPU 0;
/// - `direct ×2`: two such loops on CPU 0 and CPU 1, each speaking every other line;
/// - `library ×1` / `×2` (with a `libraryPeer`): a C program calling libespeak-ng directly, the
///   voice loaded once, a WAV file per line (bench/speech/espeak-loop.c), on CPU 0 / CPU 0 and 1 —
///   the synthesis itself, with nothing of Reparto's around it;
/// - `speak`: `reparto speak --lines` (one process, `EspeakProvider`), pinned to CPU 0;
/// - `workers ×1` / `×2`: `reparto worker` processes (pinned to CPU 0 / CPU 0 and 1) running
///   `generate` jobs of `batch` lines enqueued in one transaction; wall time is PostgreSQL's
///   `max(finished_at) − min(created_at)` of those jobs, CPU time the workers' own (from /proc).
///
/// The cluster side runs in a database of its own (created, migrated, dropped) with a fresh queue
/// namespace and a fresh asset root per run, and a per-run tag in the items' options
/// (`options.model`, which espeak-ng ignores but the content key includes), so every run has fresh
/// content keys and synthesizes every line; the report checks that no line was reused.
public struct SpeechClusterBench: Sendable {
    /// The server to create the benchmark's database on (its own database is created, migrated and dropped).
    public var admin: PostgresConfiguration
    /// Arguments every `reparto worker` child gets besides its own (`--env-file`, `--amqp-url`).
    public var workerArguments: [String]
    /// Distinct lines to speak.
    public var lines: [String]
    /// The espeak-ng voice.
    public var voice: String
    /// Rounds of every phase (the median is reported).
    public var rounds: Int
    /// Lines per generate job.
    public var batch: Int
    /// Handlers per worker.
    public var workerConcurrency: Int
    /// Pin the processes to CPUs with taskset.
    public var pin: Bool
    /// Seconds to wait for one run.
    public var timeout: Double
    /// The libespeak-ng loop (bench/speech/espeak-loop.c); nil: no library phases.
    public var libraryPeer: URL?
    /// Progress lines (one per phase) go here.
    public var logger: Logger

    /// A benchmark of `lines` (see the properties for the rest).
    public init(admin: PostgresConfiguration, workerArguments: [String], lines: [String], voice: String, rounds: Int,
                batch: Int, workerConcurrency: Int, pin: Bool, timeout: Double, libraryPeer: URL?, logger: Logger) {
        (self.admin, self.workerArguments, self.lines, self.voice, self.rounds, self.batch, self.workerConcurrency,
         self.pin, self.timeout, self.libraryPeer, self.logger) =
            (admin, workerArguments, lines, voice, rounds, batch, workerConcurrency, pin, timeout, libraryPeer, logger)
    }

    /// One measured run.
    struct Sample {
        var wall: Double
        var cpu: Double
        /// CPU seconds of the PostgreSQL and RabbitMQ server processes meanwhile (worker runs only;
        /// approximate: the servers are shared with whatever else runs on the machine).
        var servers: Double = 0
    }

    /// What the generate runs produced, to prove nothing was reused.
    struct Audit {
        var lines = 0
        var reused = 0
        var distinctKeys = 0
        var rows = 0
        var failed = 0
    }

    /// Runs every phase `rounds` times and returns the report (lines ending in a newline).
    public func run() async throws -> String {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-bench-speech-\(Self.hex(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let all = work.appendingPathComponent("lines.txt")
        try (lines.joined(separator: "\n") + "\n").write(to: all, atomically: true, encoding: .utf8)
        let halves = [0, 1].map { half in lines.enumerated().filter { $0.offset % 2 == half }.map(\.element) }
        let halfFiles = try halves.enumerated().map { index, part in
            let url = work.appendingPathComponent("half\(index).txt")
            try (part.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
            return url
        }

        let database = try await BenchDatabase.create(admin: admin, logger: logger)
        let loadBefore = CPUTime.loadAverage()
        var samples: [String: [Sample]] = [:]
        var audit = Audit()
        do {
            for round in 0..<rounds {
                var phases = ["direct1", "speak", "worker1", "direct2", "worker2"]
                if libraryPeer != nil { phases += ["library1", "library2"] }
                if round % 2 == 1 { phases.reverse() }  // drift in the machine's load hits both orders
                for phase in phases {
                    let sample: Sample
                    switch phase {
                    case "direct1": sample = try await direct([all], work: work)
                    case "direct2": sample = try await direct(halfFiles, work: work)
                    case "library1": sample = try await library([all], work: work)
                    case "library2": sample = try await library(halfFiles, work: work)
                    case "speak": sample = try await speak(all, work: work)
                    case "worker1": sample = try await workers(1, database: database, work: work, audit: &audit)
                    default: sample = try await workers(2, database: database, work: work, audit: &audit)
                    }
                    samples[phase, default: []].append(sample)
                    FileHandle.standardError.write(Data(String(format: "round %d %@: wall %.3f s cpu %.3f s\n",
                                                               round + 1, phase, sample.wall, sample.cpu).utf8))
                }
            }
        } catch {
            await database.drop()
            throw error
        }
        await database.drop()
        let loadAfter = CPUTime.loadAverage()
        return report(samples: samples, audit: audit, load: (loadBefore, loadAfter))
    }

    // MARK: phases

    /// bash loops calling espeak-ng once per line, one per file, pinned to CPU 0, 1, …
    private func direct(_ files: [URL], work: URL) async throws -> Sample {
        let script = #"i=0; while IFS= read -r line; do i=$((i+1)); "$0" --stdout -v "$1" "$line" > "$2/$i.wav"; done < "$3""#
        let espeak = EspeakProvider().executable.path
        return try await filePerLine(files, work: work, what: "espeak-ng loop") { file, output in
            ("/bin/bash", ["-c", script, espeak, voice, output.path, file.path])
        }
    }

    /// The libespeak-ng loop, one process per file, pinned to CPU 0, 1, …
    private func library(_ files: [URL], work: URL) async throws -> Sample {
        guard let libraryPeer else { throw BenchError("no --library-peer") }
        return try await filePerLine(files, work: work, what: "libespeak-ng loop") { file, output in
            (libraryPeer.path, [voice, output.path, file.path])
        }
    }

    /// Runs `command(file, outputDirectory)` for each file at once, the n-th pinned to CPU n, and
    /// checks that together they wrote one file per line.
    private func filePerLine(_ files: [URL], work: URL, what: String,
                             command: (URL, URL) -> (String, [String])) async throws -> Sample {
        try await measureChildren {
            let outputs = try files.indices.map { _ -> URL in
                let dir = work.appendingPathComponent("peer-\(Self.hex(6))")
                try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                return dir
            }
            let children = try files.indices.map { index in
                let (executable, arguments) = command(files[index], outputs[index])
                return try ChildProcess.start(pinned(index, executable, arguments))
            }
            for child in children { try await ChildProcess.expectSuccess(child, what: what) }
            let produced = outputs.reduce(0) { $0 + ((try? FileManager.default.contentsOfDirectory(atPath: $1.path).count) ?? 0) }
            guard produced == lines.count else { throw BenchError("the \(what) wrote \(produced) of \(lines.count) files") }
            for dir in outputs { try? FileManager.default.removeItem(at: dir) }
        }
    }

    /// `reparto speak --lines` pinned to CPU 0.
    private func speak(_ file: URL, work: URL) async throws -> Sample {
        let dir = work.appendingPathComponent("speak-\(Self.hex(6))")
        defer { try? FileManager.default.removeItem(at: dir) }
        return try await measureChildren {
            let child = try ChildProcess.start(pinned(0, Self.executable.path,
                                               ["speak", "--lines", file.path, "--output-dir", dir.path, "--voice", voice, "--quiet"]))
            try await ChildProcess.expectSuccess(child, what: "reparto speak")
        }
    }

    /// `count` worker processes (pinned to CPU 0, 1, …) running the lines as generate jobs.
    private func workers(_ count: Int, database: BenchDatabase, work: URL, audit: inout Audit) async throws -> Sample {
        let namespace = "benchspeech_\(Self.hex(8))"
        let assets = work.appendingPathComponent("assets-\(namespace)")
        let tag = "bench-run-\(Self.hex(12))"
        let logs = (0..<count).map { work.appendingPathComponent("\(namespace)-\($0).log") }
        for log in logs { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        var environment = ProcessInfo.processInfo.environment
        environment["REPARTO_ASSETS"] = assets.path
        if let password = database.configuration.password { environment["REPARTO_DATABASE_PASSWORD"] = password }
        var arguments = ["worker", "--queues", SpeechJob.queue, "--concurrency", "\(workerConcurrency)",
                         "--prefetch", "\(workerConcurrency)", "--heartbeat", "1", "--drain-timeout", "5",
                         "--namespace", namespace, "--database-url", database.url, "--log-level", "warning"]
        arguments += workerArguments
        let children = try (0..<count).map { index in
            try ChildProcess.start(pinned(index, Self.executable.path, arguments), environment: environment, log: logs[index])
        }
        // The run's jobs live in its namespace: enqueue and read them from there.
        let scoped = database.namespaced(namespace, logger: quietLogger)
        do {
            let sample = try await measureWorkers(children, database: scoped, tag: tag, audit: &audit)
            await ChildProcess.stop(children)
            await scoped.postgres.shutdown()
            return sample
        } catch {
            await ChildProcess.stop(children)
            await scoped.postgres.shutdown()
            let tail = logs.compactMap { try? String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
                .split(separator: "\n").suffix(3).joined(separator: " | ")
            throw BenchError("\(error)" + (tail.isEmpty ? "" : " (worker log: \(tail))"))
        }
    }

    private var quietLogger: Logger {
        var logger = Logger(label: "reparto.bench")
        logger.logLevel = .warning
        return logger
    }

    private func measureWorkers(_ children: [Process], database: BenchDatabase, tag: String, audit: inout Audit) async throws -> Sample {
        let client = JobClient(postgres: database.postgres)
        let pids = Set(children.map(\.processIdentifier))
        let options = SynthesisOptions(model: tag)

        // Warm up until every worker has run a job: the process is up, consuming, and has listed its voices.
        let warmUp = try await client.createProduction(name: "bench speech warm-up")
        var served = Set<Int32>()
        for attempt in 0..<20 where served != pids {
            if let dead = children.first(where: { !$0.isRunning }) {
                throw BenchError("worker \(dead.processIdentifier) exited with status \(dead.terminationStatus)")
            }
            let jobs = try (0..<(children.count * workerConcurrency * 2)).map { index in
                try JobRequest(SpeechJob(items: [.init(text: "Warm up \(attempt) \(index).", voice: voice, options: options)]),
                               options: JobOptions(maxAttempts: 1, productionID: warmUp))
            }
            _ = try await client.enqueue(jobs)
            _ = try await client.awaitProduction(warmUp, timeout: timeout, logger: quietLogger,
                                                 until: { $0.total > 0 && $0.done >= $0.total })
            served = try await BenchmarkReads.workerPIDs(production: warmUp, on: database.postgres)
        }
        guard served == pids else { throw BenchError("not every worker took a warm-up job (\(served.count) of \(pids.count))") }

        let production = try await client.createProduction(name: "bench speech \(children.count) worker(s)")
        let requests = try stride(from: 0, to: lines.count, by: batch).map { start in
            try JobRequest(SpeechJob(items: lines[start..<min(start + batch, lines.count)].map {
                SpeechJob.Item(text: $0, voice: voice, options: options)
            }), options: JobOptions(maxAttempts: 1, productionID: production))
        }
        let cpuBefore = children.map { CPUTime.process($0.processIdentifier) }, serversBefore = CPUTime.servers()
        _ = try await client.enqueue(requests)
        _ = try await client.awaitProduction(production, timeout: timeout, logger: quietLogger,
                                             until: { $0.total > 0 && $0.done >= $0.total })
        let cpuAfter = children.map { CPUTime.process($0.processIdentifier) }, serversAfter = CPUTime.servers()

        let summary = try await BenchmarkReads.summary(production: production, on: database.postgres)
        let results = try await BenchmarkReads.results(production: production, on: database.postgres)
        let rows = try await database.generatedContentRows(jobIDs: results.map(\.id))
        var keys = Set<String>(), entries = 0, reused = 0
        for job in results {
            guard let text = job.result,
                  let result = try? JSONDecoder().decode(SpeechJob.Result.self, from: Data(text.utf8)) else { continue }
            entries += result.items.count
            reused += result.items.filter(\.reused).count
            keys.formUnion(result.items.map(\.contentKey))
        }
        let failed = summary.notSucceeded
        audit.lines += lines.count
        audit.reused += reused
        audit.distinctKeys += keys.count
        audit.rows += rows
        audit.failed += failed
        guard failed == 0, entries == lines.count else {
            throw BenchError("\(failed) generate jobs failed, \(entries) of \(lines.count) lines reported")
        }
        let cpu = zip(cpuBefore, cpuAfter).reduce(0) { $0 + ($1.1 - $1.0) }
        return Sample(wall: summary.seconds, cpu: cpu, servers: serversAfter - serversBefore)
    }

    // MARK: helpers

    /// The command line for `executable` pinned to CPU `index` (when pinning is on and taskset exists).
    private func pinned(_ index: Int, _ executable: String, _ arguments: [String]) -> (String, [String]) {
        guard pin, FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") else { return (executable, arguments) }
        let cpus = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return ("/usr/bin/taskset", ["-c", "\(index % cpus)", executable] + arguments)
    }

    /// Runs `body` (which starts and waits for children) and returns its wall time and the CPU
    /// time of the children it reaped.
    private func measureChildren(_ body: () async throws -> Void) async throws -> Sample {
        let c0 = CPUTime.children(), t0 = DispatchTime.now().uptimeNanoseconds
        try await body()
        let t1 = DispatchTime.now().uptimeNanoseconds, c1 = CPUTime.children()
        return Sample(wall: Double(t1 - t0) / 1e9, cpu: c1 - c0)
    }

    /// This very executable (to start `reparto worker` and `reparto speak`).
    static var executable: URL { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath() }

    /// `count` random lowercase hex digits (names of the run's database, namespace and folders).
    static func hex(_ count: Int) -> String {
        String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(count))
    }
}
