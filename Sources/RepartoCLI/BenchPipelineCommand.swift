import ArgumentParser
import Dispatch
import Foundation
import Jobs
import TableRead
import Screenplay
import Speech
import Synchronization

/// `reparto bench pipeline`: a generated feature-length script from submission to finished table
/// read (parse, enrich, one generate job per line, assemble) on a coordinator and workers in this
/// process, against synthesizing the same lines with espeak-ng directly, one process per core.
struct BenchPipelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Benchmark a feature-length table read against espeak-ng run directly.",
        discussion: "Needs the services (scripts/services up). Each run generates fresh lines, so no audio is reused.")

    @OptionGroup var cluster: ClusterOptions

    @Option(help: "Speakable lines in the generated script.")
    var lines: Int = 1500

    @Option(help: "Workers (and parallel espeak-ng processes for the direct run).")
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Speakable lines per generate job.")
    var linesPerJob: Int = 1

    @Option(help: "Seed of the generated script (default: random).")
    var seed: UInt64?

    @Flag(help: "Skip the direct espeak-ng run.")
    var skipDirect = false

    @OptionGroup var libraryPeer: LibraryPeerOption

    @Option(help: "Handlers per worker (lines spoken at once by each).")
    var concurrency: Int = 2

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 900

    func validate() throws {
        guard lines >= 10 && lines <= 100_000 else { throw ValidationError("--lines must be between 10 and 100000") }
        guard workers >= 1 && workers <= 64 else { throw ValidationError("--workers must be between 1 and 64") }
        guard concurrency >= 1 && concurrency <= 64 else { throw ValidationError("--concurrency must be between 1 and 64") }
    }

    func run() async throws {
        var quiet = cluster.makeLogger("reparto.bench")
        if cluster.logLevel == "info" { quiet.logLevel = .warning }
        let logger = quiet
        let seed = self.seed ?? UInt64.random(in: 1...UInt64.max)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-bench-pipeline-\(seed)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let script = work.appendingPathComponent("feature.fountain")
        try SyntheticScreenplay(speakableLines: lines, seed: seed).fountain().write(to: script, atomically: true, encoding: .utf8)

        // The lines and voices the pipeline will speak, cast the same way.
        let document = try ScreenplayReader.read(Array(try Data(contentsOf: script)), fileName: script.lastPathComponent)
        let analysis = ScriptAnalysis(document: document)
        let cast = try await CastingDirector.cast(document: document, registry: .standard())
        let spoken = EnrichJob.lines(document: document, analysis: analysis, cast: cast, announceCharacters: false)
        print(String(format: "script: %d speakable lines, %.0f pages, %d characters, %d scenes (seed %llu)",
                     spoken.count, analysis.pageCount, analysis.characters.count, analysis.scenes.count, seed))

        var directSeconds: Double?
        if !skipDirect {
            let seconds = try await Self.speakDirectly(spoken, processes: workers, into: work.appendingPathComponent("direct"))
            directSeconds = seconds
            print(String(format: "espeak-ng directly, %d processes at a time: %.2f s (%.1f lines/s)", workers, seconds,
                         Double(spoken.count) / seconds))
        }

        var librarySeconds: Double?
        if let peer = libraryPeer.url {
            let seconds = try await Self.speakWithLibrary(spoken, peer: peer, processes: workers,
                                                          into: work.appendingPathComponent("library"))
            librarySeconds = seconds
            print(String(format: "libespeak-ng directly, %d processes at a time: %.2f s (%.1f lines/s)", workers, seconds,
                         Double(spoken.count) / seconds))
        }

        let assets = work.appendingPathComponent("assets")
        let namespace = "bench-\(seed % 1_000_000)"
        var environment = cluster
        environment.namespace = namespace
        var local = LocalCluster(cluster: environment, workers: workers, namespace: namespace, assetsRoot: assets,
                                 logger: logger)
        local.concurrency = concurrency
        let timeout = self.timeout, linesPerJob = self.linesPerJob
        let outcome = try await local.run { postgres -> (Double, TableReadResults?) in
            let tableReads = TableReadClient(postgres: postgres, assetsRoot: assets)
            let started = ContinuousClock.now
            let id = try await tableReads.submit(file: script, options: .init(linesPerJob: linesPerJob))
            _ = try await JobClient(postgres: postgres).awaitProduction(id, timeout: timeout, logger: logger)
            let elapsed = (ContinuousClock.now - started) / .seconds(1)
            return (elapsed, try await tableReads.results(id))
        }
        guard let (pipelineSeconds, results) = outcome, let results else { throw CLIError("interrupted") }
        guard results.state == "completed" else {
            throw CLIError("the production ended \(results.state): \(results.failures.first?.error ?? "see reparto results")")
        }
        let stageLine = results.stages.map { "\($0.name) \($0.total)" }.joined(separator: ", ")
        print(String(format: "reparto, %d workers, submit → table read: %.2f s (%.1f lines/s; jobs: %@)", workers,
                     pipelineSeconds, Double(spoken.count) / pipelineSeconds, stageLine))
        print(String(format: "table read: %@ of audio, %d lines spoken, %d missing", ResultsPrinter.clock(results.audioSeconds ?? 0),
                     results.spokenLines ?? 0, results.missingLines ?? 0))
        if let directSeconds {
            print(String(format: "ratio reparto / direct: %.3f", pipelineSeconds / directSeconds))
        }
        if let librarySeconds {
            print(String(format: "ratio reparto / libespeak-ng directly: %.3f", pipelineSeconds / librarySeconds))
        }
    }

    /// Speaks every line with the libespeak-ng loop: the lines of each voice split into
    /// `processes` files, one loop per file, `processes` at a time; returns the wall time.
    static func speakWithLibrary(_ lines: [TableReadLine], peer: URL, processes: Int, into directory: URL) async throws -> Double {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var commands: [(String, [String])] = []
        let byVoice = Dictionary(grouping: lines, by: \.voice)
        for (voice, voiceLines) in byVoice.sorted(by: { $0.key < $1.key }) {
            for part in 0..<processes {
                let texts = voiceLines.enumerated().filter { $0.offset % processes == part }
                    .map { $0.element.text.replacingOccurrences(of: "\n", with: " ") }
                guard !texts.isEmpty else { continue }
                let name = "\(commands.count)"
                let file = directory.appendingPathComponent("\(name).txt"), output = directory.appendingPathComponent(name)
                try (texts.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
                try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
                commands.append((peer.path, [voice, output.path, file.path]))
            }
        }
        return try await runProcesses(commands, processes: processes)
    }

    /// Speaks every line with `espeak-ng -w`, `processes` at a time; returns the wall time.
    static func speakDirectly(_ lines: [TableReadLine], processes: Int, into directory: URL) async throws -> Double {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let commands = lines.enumerated().map { index, line in
            ("/usr/bin/espeak-ng", ["-v", line.voice, "-s", "175", "-w", directory.appendingPathComponent("\(index).wav").path, line.text])
        }
        return try await runProcesses(commands, processes: processes)
    }

    /// Runs `commands`, `processes` at a time, each to a zero exit; returns the wall time.
    static func runProcesses(_ commands: [(String, [String])], processes: Int) async throws -> Double {
        let started = ContinuousClock.now
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // Plain threads, as a shell loop per core would run them; nothing here touches the pool.
            DispatchQueue.global().async {
                let next = NextIndex()
                let failure = FirstFailure()
                DispatchQueue.concurrentPerform(iterations: processes) { _ in
                    while let index = next.take(below: commands.count), failure.error == nil {
                        let process = Process()
                        process.executableURL = URL(fileURLWithPath: commands[index].0)
                        process.arguments = commands[index].1
                        do {
                            try process.run()
                            process.waitUntilExit()
                            if process.terminationStatus != 0 {
                                failure.record(CLIError("\(commands[index].0) exited \(process.terminationStatus)"))
                            }
                        } catch { failure.record(error) }
                    }
                }
                if let error = failure.error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
        return (ContinuousClock.now - started) / .seconds(1)
    }
}

/// Hands out indexes to the direct run's threads.
private final class NextIndex: Sendable {
    private let value = Mutex(0)
    func take(below limit: Int) -> Int? {
        value.withLock { value in
            guard value < limit else { return nil }
            defer { value += 1 }
            return value
        }
    }
}

private final class FirstFailure: Sendable {
    private let value = Mutex<(any Error)?>(nil)
    var error: (any Error)? { value.withLock { $0 } }
    func record(_ error: any Error) { value.withLock { if $0 == nil { $0 = error } } }
}
