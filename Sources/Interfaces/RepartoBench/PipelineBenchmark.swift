import Foundation
import RepartoRuntime
import Logging
import Postgres
import Screenplay
import Speech
import TableRead

/// `reparto bench pipeline`: a generated feature-length script from submission to finished table
/// read (parse, enrich, one generate job per line, assemble) on a coordinator and workers, against
/// synthesizing the same lines with the engine's command directly (`espeak-ng` or `flite`, one
/// process per line, `processes` at a time; Piper's `python -m piper` in `processes` processes,
/// each loading the model once for its share; given a library peer, also libespeak-ng directly),
/// and against the by-hand baseline: that direct run, then the lines joined, loudness-normalized
/// and encoded with ffmpeg and LAME (``ByHandBaseline``), delivering what the table read delivers.
///
/// The caller runs the cluster side: a coordinator and workers on ``namespace`` and ``assets``
/// around the body ``run(processes:skipDirect:skipByHand:libraryPeer:linesPerJob:timeout:logger:cluster:report:)`` hands it.
public struct PipelineBenchmark: Sendable {
    /// Speakable lines in the generated script.
    public var lines: Int
    /// The generated script's seed (a fresh seed: fresh lines, so no audio is reused).
    public var seed: UInt64
    /// The engine the script is cast with and run directly.
    public var engine: Engine
    /// Files the table read delivers besides the WAV.
    public var formats: [AudioFileFormat]
    /// The variables the cluster's providers see (Piper's voices), for casting and the direct run.
    public var environment: [String: String]

    /// The offline engines the benchmark compares against their own command.
    public enum Engine: String, Sendable, CaseIterable {
        case espeak = "espeak-ng"
        case flite
        case piper

        /// The direct run's command for one line: the engine's binary writing a WAV at normal speed
        /// (nil for Piper, whose command speaks a share of the lines: ``PiperCommandLine``).
        func command(voice: String, text: String, output: String) -> (String, [String])? {
            switch self {
            case .espeak: ("/usr/bin/espeak-ng", ["-v", voice, "-s", "175", "-w", output, text])
            case .flite: ("/usr/bin/flite", ["-voice", voice, "-o", output, "-t", text])
            case .piper: nil
            }
        }

        /// How the direct run runs the engine, for the report.
        var directRun: String {
            switch self {
            case .espeak, .flite: "\(rawValue) directly (one process per line)"
            case .piper: "piper CLI directly (python -m piper, model loaded once per process)"
            }
        }
    }

    /// A benchmark of a script of `lines` speakable lines generated from `seed` (random when nil),
    /// cast with `engine`'s voices, delivering `formats`, with the providers configured from
    /// `environment`.
    public init(lines: Int, seed: UInt64?, engine: Engine = .espeak, formats: [AudioFileFormat] = [.wav],
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.lines = lines
        self.seed = seed ?? UInt64.random(in: 1...UInt64.max)
        self.engine = engine
        self.formats = formats
        self.environment = environment
    }

    /// The run's scratch folder.
    public var work: URL { FileManager.default.temporaryDirectory.appendingPathComponent("reparto-bench-pipeline-\(seed)") }
    /// The generated script.
    public var script: URL { work.appendingPathComponent("feature.fountain") }
    /// The asset volume of the cluster side.
    public var assets: URL { work.appendingPathComponent("assets") }
    /// The queue namespace of the cluster side.
    public var namespace: String { "bench-\(seed % 1_000_000)" }

    /// Seconds from submission to the table read, its results, when each stage ran, and the peak
    /// memory of the cluster's processes.
    public typealias Measurement = (seconds: Double, results: TableReadResults, stages: String, memory: String)

    /// Runs the whole benchmark and reports each figure through `report` as it is known: the
    /// script, the engine's command directly (unless `skipDirect`), the by-hand baseline on the
    /// direct run's files (unless `skipDirect` or `skipByHand`; needs ffmpeg), libespeak-ng
    /// directly (given a `libraryPeer`), then the table read on the cluster `cluster` runs around
    /// the body it is given (nil from `cluster`: interrupted), and the ratios. Removes ``work`` at
    /// the end.
    public func run(processes: Int, skipDirect: Bool, skipByHand: Bool = false, libraryPeer: URL?, linesPerJob: Int, timeout: Double,
                    logger: Logger, cluster: (@escaping @Sendable (PostgresClient) async throws -> Measurement) async throws -> Measurement?,
                    report: (String) -> Void) async throws {
        defer { try? FileManager.default.removeItem(at: work) }
        var ffmpeg: FFmpegTool?
        if !skipDirect && !skipByHand {
            guard let found = FFmpegTool.locate(environment: ProcessInfo.processInfo.environment) else {
                throw BenchError("the by-hand baseline needs ffmpeg (or REPARTO_FFMPEG); --skip-by-hand leaves it out")
            }
            ffmpeg = found
        }
        let (spoken, description) = try await prepare()
        report(description)
        func rate(_ seconds: Double) -> Double { Double(spoken.count) / seconds }
        var directSeconds: Double?
        var byHandSeconds: Double?
        if !skipDirect {
            let (seconds, files) = try await speakDirectly(spoken, processes: processes)
            directSeconds = seconds
            report(String(format: "%@, %d processes at a time: %.2f s (%.1f lines/s)", engine.directRun, processes, seconds, rate(seconds)))
            if let ffmpeg {
                let baseline = ByHandBaseline(ffmpeg: ffmpeg, directory: work.appendingPathComponent("by-hand"), processes: processes,
                                              formats: formats)
                let outcome = try await baseline.finish(spoken, files: files)
                let total = seconds + outcome.total
                byHandSeconds = total
                report(String(format: "by hand (%@; ffmpeg concat, loudnorm two-pass%@): %.2f s (%.1f lines/s; speak %.2f s, join %.2f s, "
                              + "loudnorm %.2f s, encode %.2f s; %.1f LUFS, %.1f dBTP, %@)",
                              engine.directRun, formats.contains(.mp3) ? ", LAME MP3" : "", total, rate(total), seconds, outcome.join,
                              outcome.normalize, outcome.encode, outcome.loudness.outputI, outcome.loudness.outputTP,
                              outcome.loudness.normalizationType.lowercased()))
                try? FileManager.default.removeItem(at: baseline.directory)
            }
        }
        var librarySeconds: Double?
        if let libraryPeer {
            let seconds = try await speakWithLibrary(spoken, peer: libraryPeer, processes: processes)
            librarySeconds = seconds
            report(String(format: "libespeak-ng directly, %d processes at a time: %.2f s (%.1f lines/s)", processes, seconds, rate(seconds)))
        }
        let bench = self
        guard let (seconds, results, stages, memory) = try await cluster({ postgres in
            try await bench.measure(postgres: postgres, linesPerJob: linesPerJob, timeout: timeout, logger: logger)
        }) else { throw BenchError("interrupted") }
        let stageLine = results.stages.map { "\($0.name) \($0.total)" }.joined(separator: ", ")
        report(String(format: "reparto (%@; %@), %d workers, submit → table read: %.2f s (%.1f lines/s; jobs: %@)",
                      engine.rawValue, formats.map(\.rawValue).joined(separator: ","), processes, seconds, rate(seconds), stageLine))
        report("stages (from submission): \(stages)")
        report("peak RSS: \(memory)")
        report(String(format: "table read: %@ of audio, %d lines spoken, %d missing", TableReadResults.clock(results.audioSeconds ?? 0),
                      results.spokenLines ?? 0, results.missingLines ?? 0))
        if let directSeconds { report(String(format: "ratio reparto / direct: %.3f", seconds / directSeconds)) }
        if let byHandSeconds { report(String(format: "ratio reparto / by hand: %.3f", seconds / byHandSeconds)) }
        if let librarySeconds { report(String(format: "ratio reparto / libespeak-ng directly: %.3f", seconds / librarySeconds)) }
    }

    /// Writes the script and returns the lines the pipeline will speak, cast the same way, with a
    /// line describing the script.
    public func prepare() async throws -> (lines: [TableReadLine], description: String) {
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try SyntheticScreenplay(speakableLines: lines, seed: seed).fountain().write(to: script, atomically: true, encoding: .utf8)
        let document = try ScreenplayReader.read(Array(try Data(contentsOf: script)), fileName: script.lastPathComponent)
        let analysis = ScriptAnalysis(document: document)
        let cast = try await CastingDirector.cast(document: document, registry: .standard(environment: environment), overrides: castOverrides)
        let spoken = EnrichJob.lines(document: document, analysis: analysis, cast: cast, announceCharacters: false)
        let description = String(format: "script: %d speakable lines, %.0f pages, %d characters, %d scenes (seed %llu)",
                                 spoken.count, analysis.pageCount, analysis.characters.count, analysis.scenes.count, seed)
        return (spoken, description)
    }

    /// The cluster side: submits the script as a table read and waits for it; returns the seconds
    /// from submission to the end and the results. Throws unless the production completed.
    public func measure(postgres: PostgresClient, linesPerJob: Int, timeout: Double, logger: Logger) async throws -> Measurement {
        let tableReads = TableReadClient(postgres: postgres, assetsRoot: assets)
        let started = ContinuousClock.now
        let id = try await tableReads.submit(file: script, options: .init(cast: castOverrides, linesPerJob: linesPerJob, formats: formats))
        _ = try await JobClient(postgres: postgres).awaitProduction(id, timeout: timeout, logger: logger)
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        guard let results = try await tableReads.results(id) else { throw BenchError("interrupted") }
        guard results.state == "completed" else {
            throw BenchError("the production ended \(results.state): \(results.failures.first?.error ?? "see reparto results")")
        }
        let memory = PeakMemory.cluster()  // before the cluster ends its helper processes
        let spans = try await BenchmarkReads.stageSpans(id, on: postgres)
        return (elapsed, results, spans.map { String(format: "%@ %.2f–%.2f s", $0.kind, $0.start, $0.end) }.joined(separator: ", "), memory)
    }

    /// The cast the script is read with: the engine's voices.
    var castOverrides: CastOverrides { CastOverrides(provider: engine.rawValue) }

    /// Speaks every line with the engine's command into a WAV file each, `processes` at a time
    /// (Piper: its command in `processes` processes per voice, each speaking its share of the
    /// lines); returns the wall time and the files, in the order of `lines`.
    public func speakDirectly(_ lines: [TableReadLine], processes: Int) async throws -> (seconds: Double, files: [URL]) {
        let directory = work.appendingPathComponent("direct")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard engine == .piper else {
            var commands: [(String, [String])] = [], files: [URL] = []
            for (index, line) in lines.enumerated() {
                let file = directory.appendingPathComponent("\(index).wav")
                guard let command = engine.command(voice: line.voice, text: line.text, output: file.path) else { break }
                commands.append(command)
                files.append(file)
            }
            return (try await ProcessPool.run(commands, processes: processes), files)
        }
        let piper = try PiperCommandLine(environment: environment)
        let shares = try piper.plan(lines, processes: processes, directory: directory)
        let log = directory.appendingPathComponent("piper.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw BenchError("cannot create \(log.path)") }
        let seconds: Double
        do {
            seconds = try await ProcessPool.run(shares.map(\.command), processes: processes, log: log)
        } catch {
            let said = (try? String(contentsOf: log, encoding: .utf8)).map { $0.split(separator: "\n").suffix(3).joined(separator: " / ") } ?? ""
            throw BenchError("\(error) (piper said: \(said.suffix(400)))")
        }
        return (seconds, try PiperCommandLine.outputs(of: shares, count: lines.count))
    }

    /// Speaks every line with the libespeak-ng loop `peer`: the lines of each voice split into
    /// `processes` files, one loop per file, `processes` at a time; returns the wall time.
    public func speakWithLibrary(_ lines: [TableReadLine], peer: URL, processes: Int) async throws -> Double {
        let directory = work.appendingPathComponent("library")
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
        return try await ProcessPool.run(commands, processes: processes)
    }
}
