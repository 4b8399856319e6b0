import TerminalText
import SpeechJobs
import Foundation
import TextEscaping

/// Human-readable text of ``TableReadResults`` (paths shown absolute, below `assetsRoot`).
public struct TableReadText {
    let assetsRoot: URL

    public init(assetsRoot: URL) { self.assetsRoot = assetsRoot }

    /// State, files, lines and the first failures: what `submit --wait` and `run` end with.
    public func summary(_ r: TableReadResults) -> String {
        var lines: [String] = []
        func print(_ line: String) { lines.append(line) }
        print("\(r.name): \(r.state.replacingOccurrences(of: "_", with: " "))")
        if let files = r.files {
            print("  table read  \(path(files.audio))" + (r.audioSeconds.map { " (\(TableReadResults.clock($0)))" } ?? ""))
            print("  subtitles   \(path(files.subtitles))")
            print("  chapters    \(path(files.chapters))")
            print("  report      \(path(files.report))")
            for encoded in files.encodings ?? [] { print("  \((encoded as NSString).pathExtension.padding(toLength: 11, withPad: " ", startingAt: 0)) \(path(encoded))") }
        }
        if let master = Self.master(r) { print("  master      \(master)") }
        if let spoken = r.spokenLines, let missing = r.missingLines {
            print("  lines       \(spoken) spoken" + (missing > 0 ? ", \(missing) missing (see the report)" : ""))
        }
        let dead = r.failures.filter { $0.state == "dead" }
        for failure in dead.prefix(5) {
            print("  failed      \(failure.kind): \(failure.error ?? "no error recorded")")
        }
        if dead.count > 5 { print("  …and \(dead.count - 5) more failed jobs (reparto results \(r.productionID.uuidString.lowercased()))") }
        return TerminalSafe.clean(lines.joined(separator: "\n") + "\n")
    }

    /// Everything `reparto results` shows.
    public func full(_ r: TableReadResults) -> String {
        var lines: [String] = []
        func print(_ line: String) { lines.append(line) }
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
        if let scope = r.scope { print("scope       \(scope)") }
        if let statuses = lineStatuses(r) { print("lines       \(statuses)") }
        if let files = r.files {
            print("files")
            print("  table read  \(path(files.audio))")
            print("  subtitles   \(path(files.subtitles))")
            print("  chapters    \(path(files.chapters))")
            print("  report      \(path(files.report))")
            for encoded in files.encodings ?? [] { print("  \((encoded as NSString).pathExtension.padding(toLength: 11, withPad: " ", startingAt: 0)) \(path(encoded))") }
            var audio = "audio       " + TableReadResults.clock(r.audioSeconds ?? 0)
            if let peak = r.peakDBFS { audio += String(format: ", peak %.1f dBFS", peak) }
            if let rms = r.rmsDBFS { audio += String(format: ", RMS %.1f dBFS", rms) }
            if let lufs = r.loudnessLUFS, let truePeak = r.truePeakDBTP {
                audio += String(format: ", loudness %.1f LUFS (true peak %.1f dBTP)", lufs, truePeak)
            }
            audio += ", \(r.spokenLines ?? 0) lines spoken, \(r.missingLines ?? 0) missing"
            print(audio)
        }
        if let master = Self.master(r) { print("master      \(master)") }
        if !r.characters.isEmpty {
            print("characters")
            for c in r.characters {
                print("  \(c.name.padding(toLength: max(c.name.count, 18), withPad: " ", startingAt: 0)) \(c.dialogueLines) lines, \(c.words) words, first at \(c.firstChapter)/\(c.firstOrder), scenes \(c.scenes.map(String.init).joined(separator: ",")), voice \(c.provider.map { $0 + ":" } ?? "")\(c.voice ?? "?")")
                for line in CastText.resultLines(c) { print("      " + line) }
            }
        }
        if !r.scenes.isEmpty {
            print("scenes")
            for s in r.scenes {
                let eighths = s.eighths / 8 > 0 ? "\(s.eighths / 8) \(s.eighths % 8)/8" : "\(s.eighths)/8"
                print("  \(s.index). \(s.heading)  [\(s.setting ?? "-") · \(s.location) · \(s.timeOfDay ?? "-")]  \(eighths) pg")
            }
        }
        let flagged = r.lines.filter { $0.defects != nil }
        if !flagged.isEmpty {
            print("audio to check")
            for line in flagged {
                print("  \(line.chapterIndex)/\(line.orderIndex) \(line.speaker): \((line.defects ?? []).map(\.rawValue).joined(separator: ", ")) — \(line.text.prefix(60))")
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
        return TerminalSafe.clean(lines.joined(separator: "\n") + "\n")
    }

    /// The master and what it measured: `podcast: -16.1 LUFS, true peak -1.4 dBTP`, `acx: RMS
    /// -20.0 dB, peak -3.4 dB, noise floor -70.0 dB, room tone 0.75 s + 2.50 s, MP3 192 kbit/s CBR
    /// 44.1 kHz: passes` (or what does not pass, or why it was not mastered); nil when unknown.
    static func master(_ r: TableReadResults) -> String? {
        guard let master = r.mastering?.master ?? r.master else { return nil }
        guard let levels = r.mastering else { return master.rawValue }
        if let reason = levels.reason, levels.mode == "skipped" { return "\(master.rawValue): not mastered (\(reason))" }
        func db(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "-inf" }
        guard let acx = levels.acx else {
            return "\(master.rawValue): \(db(levels.integratedLUFS)) LUFS, true peak \(db(levels.truePeakDBTP)) dBTP"
        }
        let peak = [acx.samplePeakDBFS, acx.truePeakDBTP].compactMap { $0 }.max()
        return "\(master.rawValue): RMS \(db(acx.rmsDBFS)) dB, peak \(db(peak)) dB, noise floor \(db(acx.noiseFloorDBFS)) dB, "
            + String(format: "room tone %.2f s + %.2f s, MP3 %d kbit/s CBR %.1f kHz: ", acx.headSeconds, acx.tailSeconds,
                     acx.mp3BitRateKbps, Double(acx.sampleRate) / 1000)
            + (acx.passes ? "passes" : acx.problems.joined(separator: "; "))
    }

    /// `30 complete, 2 failed` in status order; nil before the lines exist.
    private func lineStatuses(_ r: TableReadResults) -> String? {
        let counts = r.lineStatusCounts
        guard !counts.isEmpty else { return nil }
        return TableReadLineStatus.allCases.compactMap { status in counts[status].map { "\($0) \(status.rawValue)" } }
            .joined(separator: ", ")
    }

    private func path(_ relative: String) -> String { assetsRoot.appendingPathComponent(relative).path }
}
