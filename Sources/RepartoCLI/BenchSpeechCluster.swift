import Dispatch
import Foundation
import Jobs
import Logging
import TableRead
import Postgres
import Speech
#if canImport(Glibc)
import Glibc
#endif

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
struct SpeechClusterBench {
    var cluster: ClusterOptions
    var lines: [String]
    var voice: String
    var rounds: Int
    var batch: Int
    var workerConcurrency: Int
    var pin: Bool
    var timeout: Double
    /// The libespeak-ng loop (bench/speech/espeak-loop.c); nil: no library phases.
    var libraryPeer: URL?

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

    func run() async throws {
        let logger = cluster.makeLogger("reparto.bench")
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

        let database = try await BenchDatabase.create(cluster: cluster, logger: logger)
        let loadBefore = Self.loadAverage()
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
        let loadAfter = Self.loadAverage()
        report(samples: samples, audit: audit, load: (loadBefore, loadAfter))
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
        guard let libraryPeer else { throw CLIError("no --library-peer") }
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
                return try Child.start(pinned(index, executable, arguments))
            }
            for child in children { try await Child.expectSuccess(child, what: what) }
            let produced = outputs.reduce(0) { $0 + ((try? FileManager.default.contentsOfDirectory(atPath: $1.path).count) ?? 0) }
            guard produced == lines.count else { throw CLIError("the \(what) wrote \(produced) of \(lines.count) files") }
            for dir in outputs { try? FileManager.default.removeItem(at: dir) }
        }
    }

    /// `reparto speak --lines` pinned to CPU 0.
    private func speak(_ file: URL, work: URL) async throws -> Sample {
        let dir = work.appendingPathComponent("speak-\(Self.hex(6))")
        defer { try? FileManager.default.removeItem(at: dir) }
        return try await measureChildren {
            let child = try Child.start(pinned(0, Self.executable.path,
                                               ["speak", "--lines", file.path, "--output-dir", dir.path, "--voice", voice, "--quiet"]))
            try await Child.expectSuccess(child, what: "reparto speak")
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
        var arguments = ["worker", "--queues", GenerateJob.queue, "--concurrency", "\(workerConcurrency)",
                         "--prefetch", "\(workerConcurrency)", "--heartbeat", "1", "--drain-timeout", "5",
                         "--namespace", namespace, "--database-url", database.url, "--log-level", "warning"]
        if let envFile = cluster.envFile { arguments += ["--env-file", envFile] }
        if let amqpURL = cluster.amqpURL { arguments += ["--amqp-url", amqpURL] }
        let children = try (0..<count).map { index in
            try Child.start(pinned(index, Self.executable.path, arguments), environment: environment, log: logs[index])
        }
        do {
            let sample = try await measureWorkers(children, database: database, tag: tag, audit: &audit)
            for child in children { child.terminate() }
            for child in children { _ = await Child.exitStatus(child) }
            return sample
        } catch {
            for child in children where child.isRunning { child.terminate() }
            for child in children { _ = await Child.exitStatus(child) }
            let tail = logs.compactMap { try? String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
                .split(separator: "\n").suffix(3).joined(separator: " | ")
            throw CLIError("\(error)" + (tail.isEmpty ? "" : " (worker log: \(tail))"))
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
                throw CLIError("worker \(dead.processIdentifier) exited with status \(dead.terminationStatus)")
            }
            let jobs = try (0..<(children.count * workerConcurrency * 2)).map { index in
                try JobRequest(GenerateJob(items: [.init(text: "Warm up \(attempt) \(index).", voice: voice, options: options)]),
                               options: JobOptions(maxAttempts: 1, productionID: warmUp))
            }
            _ = try await client.enqueue(jobs)
            _ = try await client.awaitProduction(warmUp, timeout: timeout, logger: quietLogger,
                                                 until: { $0.total > 0 && $0.done >= $0.total })
            served = Set(try await database.postgres.query("""
                SELECT DISTINCT w.pid FROM jobs j JOIN workers w ON w.id = j.worker_id WHERE j.production_id = $1
                """, [warmUp]).compactMap { $0.int32("pid") })
        }
        guard served == pids else { throw CLIError("not every worker took a warm-up job (\(served.count) of \(pids.count))") }

        let production = try await client.createProduction(name: "bench speech \(children.count) worker(s)")
        let requests = try stride(from: 0, to: lines.count, by: batch).map { start in
            try JobRequest(GenerateJob(items: lines[start..<min(start + batch, lines.count)].map {
                GenerateJob.Item(text: $0, voice: voice, options: options)
            }), options: JobOptions(maxAttempts: 1, productionID: production))
        }
        let cpuBefore = children.map { Self.processCPU($0.processIdentifier) }, serversBefore = Self.serversCPU()
        _ = try await client.enqueue(requests)
        _ = try await client.awaitProduction(production, timeout: timeout, logger: quietLogger,
                                             until: { $0.total > 0 && $0.done >= $0.total })
        let cpuAfter = children.map { Self.processCPU($0.processIdentifier) }, serversAfter = Self.serversCPU()

        let summary = try await database.postgres.query("""
            SELECT count(*) FILTER (WHERE state <> 'succeeded') AS failed,
                   extract(epoch FROM max(finished_at) - min(created_at))::float8 AS seconds,
                   (SELECT count(*) FROM generated_content g JOIN jobs j ON j.id = g.job_id WHERE j.production_id = $1) AS rows
            FROM jobs WHERE production_id = $1
            """, [production]).first
        let results = try await database.postgres.query("SELECT result::text AS result FROM jobs WHERE production_id = $1", [production])
        var keys = Set<String>(), entries = 0, reused = 0
        for row in results {
            guard let text = row.string("result"),
                  let result = try? JSONDecoder().decode(GenerateJob.Result.self, from: Data(text.utf8)) else { continue }
            entries += result.items.count
            reused += result.items.filter(\.reused).count
            keys.formUnion(result.items.map(\.contentKey))
        }
        let failed = summary?.int("failed") ?? 0
        audit.lines += lines.count
        audit.reused += reused
        audit.distinctKeys += keys.count
        audit.rows += summary?.int("rows") ?? 0
        audit.failed += failed
        guard failed == 0, entries == lines.count else {
            throw CLIError("\(failed) generate jobs failed, \(entries) of \(lines.count) lines reported")
        }
        let cpu = zip(cpuBefore, cpuAfter).reduce(0) { $0 + ($1.1 - $1.0) }
        return Sample(wall: summary?.double("seconds") ?? 0, cpu: cpu, servers: serversAfter - serversBefore)
    }

    // MARK: report

    private func report(samples: [String: [Sample]], audit: Audit, load: (String, String)) {
        func median(_ phase: String, _ value: (Sample) -> Double) -> Double {
            let xs = (samples[phase] ?? []).map(value).sorted()
            return xs.isEmpty ? .nan : xs[xs.count / 2]
        }
        let n = Double(lines.count)
        let wall = { (phase: String) in median(phase, \.wall) }
        let cpu = { (phase: String) in median(phase, \.cpu) }
        func pct(_ x: Double, _ base: Double) -> String { String(format: "%+.1f %%", (x / base - 1) * 100) }
        print("speech bench: \(lines.count) distinct lines, voice \(voice), \(rounds) round(s) (medians), "
              + "generate jobs of \(batch) lines, worker concurrency \(workerConcurrency), pinned: \(pin ? "yes" : "no")")
        print("load average before: \(load.0)   after: \(load.1)")
        print("")
        func overheadTable(_ title: String, against base: String, _ rows: [(String, String)]) {
            print(title.padding(toLength: 40, withPad: " ", startingAt: 0) + "  wall s   ms/line    cpu s   overhead wall / cpu")
            for (label, phase) in rows {
                let overhead = phase == base ? "" : "\(pct(wall(phase), wall(base))) / \(pct(cpu(phase), cpu(base)))"
                print(label.padding(toLength: 40, withPad: " ", startingAt: 0)
                      + String(format: "%8.3f  %8.2f  %7.3f   ", wall(phase), wall(phase) * 1000 / n, cpu(phase)) + overhead)
            }
        }
        overheadTable("one core (CPU 0)", against: "direct1", [("espeak-ng directly (bash loop)", "direct1"),
                                                               ("reparto speak --lines", "speak"), ("reparto cluster, 1 worker", "worker1")])
        if samples["library1"] != nil {
            print("")
            overheadTable("against libespeak-ng called directly", against: "library1", [
                ("libespeak-ng directly (C loop)", "library1"), ("reparto speak --lines", "speak"), ("reparto cluster, 1 worker", "worker1"),
            ])
        }
        print("")
        print(String(format: "servers (PostgreSQL + RabbitMQ, approx., shared) during the 1-worker runs: %.3f s CPU (%.2f ms/line)",
                     median("worker1", \.servers), median("worker1", \.servers) * 1000 / n))
        print("")
        print("scaling                                   wall s   lines/s    cpu s   speed-up")
        for (label, phase, base) in [("espeak-ng directly, 1 process", "direct1", "direct1"),
                                     ("espeak-ng directly, 2 processes", "direct2", "direct1"),
                                     ("libespeak-ng directly, 1 process", "library1", "library1"),
                                     ("libespeak-ng directly, 2 processes", "library2", "library1"),
                                     ("reparto, 1 worker", "worker1", "worker1"),
                                     ("reparto, 2 workers", "worker2", "worker1")] {
            guard samples[phase] != nil else { continue }
            print(label.padding(toLength: 40, withPad: " ", startingAt: 0)
                  + String(format: "%8.3f  %8.1f  %7.3f   %.2f×", wall(phase), n / wall(phase), cpu(phase), wall(base) / wall(phase)))
        }
        print("")
        print("generate runs: \(audit.lines) lines, \(audit.distinctKeys) distinct content keys, \(audit.reused) reused, "
              + "\(audit.rows) generated_content rows inserted, \(audit.failed) failed jobs")
        print("per round (wall s): " + ["direct1", "speak", "worker1", "direct2", "worker2", "library1", "library2"].filter { samples[$0] != nil }.map { phase in
            "\(phase) " + (samples[phase] ?? []).map { String(format: "%.2f", $0.wall) }.joined(separator: ",")
        }.joined(separator: "  "))
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
        let c0 = Self.childrenCPU(), t0 = DispatchTime.now().uptimeNanoseconds
        try await body()
        let t1 = DispatchTime.now().uptimeNanoseconds, c1 = Self.childrenCPU()
        return Sample(wall: Double(t1 - t0) / 1e9, cpu: c1 - c0)
    }

    /// This very executable (to start `reparto worker` and `reparto speak`).
    static var executable: URL { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath() }

    /// User + system CPU seconds of the reaped children (and theirs).
    static func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// User + system CPU seconds of a running process and of the children it reaped (from /proc).
    static func processCPU(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        // After "pid (comm)": state is field 3; utime, stime, cutime, cstime are fields 14–17.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 14 else { return 0 }
        let ticks = fields[11...14].compactMap { Double($0) }.reduce(0, +)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU seconds (own and reaped children) of every `postgres` and `beam.smp` process.
    static func serversCPU() -> Double {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var total = 0.0
        for entry in entries {
            guard let pid = Int32(entry),
                  let comm = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                  ["postgres", "beam.smp"].contains(comm.trimmingCharacters(in: .whitespacesAndNewlines)) else { continue }
            total += processCPU(pid)
        }
        return total
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func hex(_ count: Int) -> String {
        String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(count))
    }
}

/// A migrated database of the benchmark's own, dropped at the end.
struct BenchDatabase {
    var configuration: PostgresConfiguration
    var postgres: PostgresClient
    var admin: PostgresConfiguration

    /// `postgres://user@host:port/database` (the password travels in the environment).
    var url: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = configuration.user
        components.host = configuration.host
        components.port = configuration.port
        components.path = "/\(configuration.database)"
        return components.string ?? ""
    }

    static func create(cluster: ClusterOptions, logger: Logger) async throws -> BenchDatabase {
        let admin = try cluster.postgresConfiguration(applicationName: "reparto-bench")
        let name = "reparto_bench_speech_\(SpeechClusterBench.hex(8))"
        let adminClient = PostgresClient(configuration: admin, maxConnections: 1, logger: logger)
        do {
            _ = try await adminClient.query("CREATE DATABASE \(name)")  // hex digits only: a safe identifier
            await adminClient.shutdown()
        } catch {
            await adminClient.shutdown()
            throw error
        }
        var configuration = admin
        configuration.database = name
        let postgres = PostgresClient(configuration: configuration, maxConnections: 4, logger: logger)
        let database = BenchDatabase(configuration: configuration, postgres: postgres, admin: admin)
        do {
            let migrations = try Migrator.load(directory: Migrator.defaultDirectory())
            _ = try await postgres.withConnection { try Migrator.migrate(migrations, on: $0) }
        } catch {
            await database.drop()
            throw error
        }
        return database
    }

    func drop() async {
        await postgres.shutdown()
        let adminClient = PostgresClient(configuration: admin, maxConnections: 1)
        _ = try? await adminClient.query("DROP DATABASE IF EXISTS \(configuration.database) WITH (FORCE)")
        await adminClient.shutdown()
    }
}

/// Child processes for the benchmark, waited for on a Dispatch thread (never the cooperative pool).
enum Child {
    static func start(_ command: (String, [String]), environment: [String: String]? = nil, log: URL? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command.0)
        process.arguments = command.1
        if let environment { process.environment = environment }
        process.standardOutput = FileHandle.nullDevice
        if let log, let handle = FileHandle(forWritingAtPath: log.path) {
            handle.seekToEndOfFile()
            process.standardError = handle
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return process
    }

    static func exitStatus(_ process: Process) async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }

    static func expectSuccess(_ process: Process, what: String) async throws {
        let status = await exitStatus(process)
        guard status == 0 else { throw CLIError("\(what) exited with status \(status)") }
    }
}

extension BenchSentences {
    /// `count` different screenplay-like lines (subject × verb × object × ending, in mixed radix),
    /// so a run never speaks the same line twice.
    static func distinct(_ count: Int) -> [String] {
        let endings = ["", " Then silence.", " Again.", " Nobody moves."]
        let space = subjects.count * verbs.count * objects.count * endings.count
        return (0..<count).map { n in
            let i = n % space
            var line = "\(subjects[i % subjects.count]) \(verbs[(i / subjects.count) % verbs.count]) "
                + "\(objects[(i / (subjects.count * verbs.count)) % objects.count])"
                + endings[(i / (subjects.count * verbs.count * objects.count)) % endings.count]
            if n >= space { line += " Take \(n / space + 1)." }
            return line
        }
    }
}
