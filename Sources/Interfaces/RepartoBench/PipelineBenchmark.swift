import Foundation
import RepartoRuntime
import Logging
import Postgres
import Screenplay
import Speech
import TableRead

/// `reparto bench pipeline`: a generated feature-length script from submission to finished table
/// read (parse, enrich, one generate job per line, assemble) on a coordinator and workers, against
/// synthesizing the same lines with the engine's command directly (`espeak-ng` or `flite`; given
/// a library peer, also libespeak-ng directly), `processes` at a time.
///
/// The caller runs the cluster side: a coordinator and workers on ``namespace`` and ``assets``
/// around the body ``run(processes:skipDirect:libraryPeer:linesPerJob:timeout:logger:cluster:report:)`` hands it.
public struct PipelineBenchmark: Sendable {
    /// Speakable lines in the generated script.
    public var lines: Int
    /// The generated script's seed (a fresh seed: fresh lines, so no audio is reused).
    public var seed: UInt64
    /// The engine the script is cast with and run directly.
    public var engine: Engine
    /// Files the table read delivers besides the WAV.
    public var formats: [AudioFileFormat]

    /// The offline engines the benchmark compares against their own command.
    public enum Engine: String, Sendable, CaseIterable {
        case espeak = "espeak-ng"
        case flite

        /// The direct run's command for one line: the engine's binary writing a WAV at normal speed.
        func command(voice: String, text: String, output: String) -> (String, [String]) {
            switch self {
            case .espeak: ("/usr/bin/espeak-ng", ["-v", voice, "-s", "175", "-w", output, text])
            case .flite: ("/usr/bin/flite", ["-voice", voice, "-o", output, "-t", text])
            }
        }
    }

    /// A benchmark of a script of `lines` speakable lines generated from `seed` (random when nil),
    /// cast with `engine`'s voices, delivering `formats`.
    public init(lines: Int, seed: UInt64?, engine: Engine = .espeak, formats: [AudioFileFormat] = [.wav]) {
        self.lines = lines
        self.seed = seed ?? UInt64.random(in: 1...UInt64.max)
        self.engine = engine
        self.formats = formats
    }

    /// The run's scratch folder.
    public var work: URL { FileManager.default.temporaryDirectory.appendingPathComponent("reparto-bench-pipeline-\(seed)") }
    /// The generated script.
    public var script: URL { work.appendingPathComponent("feature.fountain") }
    /// The asset volume of the cluster side.
    public var assets: URL { work.appendingPathComponent("assets") }
    /// The queue namespace of the cluster side.
    public var namespace: String { "bench-\(seed % 1_000_000)" }

    /// Seconds from submission to the table read, its results, and when each stage ran.
    public typealias Measurement = (seconds: Double, results: TableReadResults, stages: String)

    /// Runs the whole benchmark and reports each figure through `report` as it is known: the
    /// script, the engine's command directly (unless `skipDirect`), libespeak-ng directly (given a
    /// `libraryPeer`), then the table read on the cluster `cluster` runs around the body it is
    /// given (nil from `cluster`: interrupted), and the ratios. Removes ``work`` at the end.
    public func run(processes: Int, skipDirect: Bool, libraryPeer: URL?, linesPerJob: Int, timeout: Double, logger: Logger,
                    cluster: (@escaping @Sendable (PostgresClient) async throws -> Measurement) async throws -> Measurement?,
                    report: (String) -> Void) async throws {
        defer { try? FileManager.default.removeItem(at: work) }
        let (spoken, description) = try await prepare()
        report(description)
        func rate(_ seconds: Double) -> Double { Double(spoken.count) / seconds }
        var directSeconds: Double?
        if !skipDirect {
            let seconds = try await speakDirectly(spoken, processes: processes)
            directSeconds = seconds
            report(String(format: "%@ directly, %d processes at a time: %.2f s (%.1f lines/s)", engine.rawValue, processes, seconds,
                          rate(seconds)))
        }
        var librarySeconds: Double?
        if let libraryPeer {
            let seconds = try await speakWithLibrary(spoken, peer: libraryPeer, processes: processes)
            librarySeconds = seconds
            report(String(format: "libespeak-ng directly, %d processes at a time: %.2f s (%.1f lines/s)", processes, seconds, rate(seconds)))
        }
        let bench = self
        guard let (seconds, results, stages) = try await cluster({ postgres in
            try await bench.measure(postgres: postgres, linesPerJob: linesPerJob, timeout: timeout, logger: logger)
        }) else { throw BenchError("interrupted") }
        let stageLine = results.stages.map { "\($0.name) \($0.total)" }.joined(separator: ", ")
        report(String(format: "reparto (%@; %@), %d workers, submit → table read: %.2f s (%.1f lines/s; jobs: %@)",
                      engine.rawValue, formats.map(\.rawValue).joined(separator: ","), processes, seconds, rate(seconds), stageLine))
        report("stages (from submission): \(stages)")
        report(String(format: "table read: %@ of audio, %d lines spoken, %d missing", TableReadResults.clock(results.audioSeconds ?? 0),
                      results.spokenLines ?? 0, results.missingLines ?? 0))
        if let directSeconds { report(String(format: "ratio reparto / direct: %.3f", seconds / directSeconds)) }
        if let librarySeconds { report(String(format: "ratio reparto / libespeak-ng directly: %.3f", seconds / librarySeconds)) }
    }

    /// Writes the script and returns the lines the pipeline will speak, cast the same way, with a
    /// line describing the script.
    public func prepare() async throws -> (lines: [TableReadLine], description: String) {
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try SyntheticScreenplay(speakableLines: lines, seed: seed).fountain().write(to: script, atomically: true, encoding: .utf8)
        let document = try ScreenplayReader.read(Array(try Data(contentsOf: script)), fileName: script.lastPathComponent)
        let analysis = ScriptAnalysis(document: document)
        let cast = try await CastingDirector.cast(document: document, registry: .standard(), overrides: castOverrides)
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
        let spans = try await BenchmarkReads.stageSpans(id, on: postgres)
        return (elapsed, results, spans.map { String(format: "%@ %.2f–%.2f s", $0.kind, $0.start, $0.end) }.joined(separator: ", "))
    }

    /// The cast the script is read with: the engine's voices.
    var castOverrides: CastOverrides { CastOverrides(provider: engine.rawValue) }

    /// Speaks every line with the engine's command into a WAV file each, `processes` at a time;
    /// returns the wall time.
    public func speakDirectly(_ lines: [TableReadLine], processes: Int) async throws -> Double {
        let directory = work.appendingPathComponent("direct")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let commands = lines.enumerated().map { index, line in
            engine.command(voice: line.voice, text: line.text, output: directory.appendingPathComponent("\(index).wav").path)
        }
        return try await ProcessPool.run(commands, processes: processes)
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
