import ArgumentParser
import Foundation
import Jobs
import RepartoKinds
import TableRead

/// `reparto results ID [--json]`: a table read's files, durations, characters, scenes, failures.
struct ResultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "results", abstract: "Show a table read's files, durations, characters, scenes and failures.")

    @OptionGroup var cluster: ClusterOptions

    @Argument(help: "Production id (as printed by submit).")
    var id: String

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let logger = cluster.makeLogger("reparto.results")
        guard let production = UUID(uuidString: id) else { throw CLIError("'\(id)' is not a production id") }
        let assets = Kinds.assetsRoot(try cluster.configuration)
        let results = try await cluster.withPostgres(logger: logger) { postgres in
            try await TableReadClient(postgres: postgres, assetsRoot: assets).results(production)
        }
        guard let results else { throw CLIError("no table read with id \(id)") }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(results), as: UTF8.self))
        } else {
            ResultsPrinter(assetsRoot: assets).printAll(results)
        }
    }
}

/// Human-readable output of ``TableReadResults``.
struct ResultsPrinter {
    let assetsRoot: URL

    func printSummary(_ r: TableReadResults) {
        print("\(r.name): \(r.state.replacingOccurrences(of: "_", with: " "))")
        if let files = r.files {
            print("  table read  \(path(files.audio))" + (r.audioSeconds.map { " (\(TableReadResults.clock($0)))" } ?? ""))
            print("  subtitles   \(path(files.subtitles))")
            print("  chapters    \(path(files.chapters))")
            print("  report      \(path(files.report))")
        }
        if let spoken = r.spokenLines, let missing = r.missingLines {
            print("  lines       \(spoken) spoken" + (missing > 0 ? ", \(missing) missing (see the report)" : ""))
        }
        let dead = r.failures.filter { $0.state == "dead" }
        for failure in dead.prefix(5) {
            print("  failed      \(failure.kind): \(failure.error ?? "no error recorded")")
        }
        if dead.count > 5 { print("  …and \(dead.count - 5) more failed jobs (reparto results \(r.productionID.uuidString.lowercased()))") }
    }

    func printAll(_ r: TableReadResults) {
        print("production  \(r.productionID.uuidString.lowercased())  \(r.name)")
        print("state       \(r.state) (stage \(r.stage))")
        print("source      \(r.source)" + (r.documentID.map { "  document \($0.uuidString.lowercased())" } ?? ""))
        for stage in r.stages {
            var line = "  \(stage.name): \(stage.succeeded)/\(stage.total) succeeded"
            if stage.failed > 0 { line += ", \(stage.failed) failed" }
            if stage.cancelled > 0 { line += ", \(stage.cancelled) cancelled" }
            if stage.pending > 0 { line += ", \(stage.pending) pending" }
            print(line)
        }
        if let pages = r.pageCount, let seconds = r.estimatedSeconds {
            print(String(format: "script      %.1f pages, about %@ of screen time, %d words, %d speakable lines",
                         pages, TableReadResults.clock(seconds), r.wordCount ?? 0, r.lineCount ?? 0))
        }
        if let provider = r.provider {
            print("voices      \(provider), language \(r.language ?? "?"), narrator \(r.narratorVoice ?? "?")")
        }
        if let files = r.files {
            print("files")
            print("  table read  \(path(files.audio))")
            print("  subtitles   \(path(files.subtitles))")
            print("  chapters    \(path(files.chapters))")
            print("  report      \(path(files.report))")
            var audio = "audio       " + TableReadResults.clock(r.audioSeconds ?? 0)
            if let peak = r.peakDBFS { audio += String(format: ", peak %.1f dBFS", peak) }
            if let rms = r.rmsDBFS { audio += String(format: ", RMS %.1f dBFS", rms) }
            audio += ", \(r.spokenLines ?? 0) lines spoken, \(r.missingLines ?? 0) missing"
            print(audio)
        }
        if !r.characters.isEmpty {
            print("characters")
            for c in r.characters {
                print("  \(c.name.padding(toLength: max(c.name.count, 18), withPad: " ", startingAt: 0)) \(c.dialogueLines) lines, \(c.words) words, first at \(c.firstChapter)/\(c.firstOrder), scenes \(c.scenes.map(String.init).joined(separator: ",")), voice \(c.voice ?? "?")")
            }
        }
        if !r.scenes.isEmpty {
            print("scenes")
            for s in r.scenes {
                let eighths = s.eighths / 8 > 0 ? "\(s.eighths / 8) \(s.eighths % 8)/8" : "\(s.eighths)/8"
                print("  \(s.index). \(s.heading)  [\(s.setting ?? "-") · \(s.location) · \(s.timeOfDay ?? "-")]  \(eighths) pg")
            }
        }
        if !r.warnings.isEmpty {
            print("parse warnings")
            for w in r.warnings { print("  \(w)") }
        }
        if !r.failures.isEmpty {
            print("failures")
            for f in r.failures {
                print("  \(f.jobID.uuidString.lowercased()) \(f.kind) (\(f.stage ?? "-"), \(f.state)): \(f.error ?? "")")
            }
        }
    }

    private func path(_ relative: String) -> String { assetsRoot.appendingPathComponent(relative).path }
}
