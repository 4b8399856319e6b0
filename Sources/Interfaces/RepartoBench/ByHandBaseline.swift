import Foundation
import Speech
import TableRead
import Threading

/// The by-hand half of `reparto bench pipeline`'s by-hand baseline: what someone would do with the
/// field's tools after speaking each line into a WAV with the engine's own command (the direct
/// run), to deliver what a table read delivers.
///
/// 1. **join** the lines in script order with ffmpeg's concat demuxer, with the pipeline's pauses
///    between them (``TableReadTimeline/Pauses``; silences from `anullsrc`), lines at another
///    sample rate than the first resampled first with ffmpeg, `processes` at a time;
/// 2. **normalize** the loudness with ffmpeg's `loudnorm` in two passes (measure, then apply with
///    the measurement and `linear=true`) to −16 LUFS, −1 dBTP into a 16-bit WAV at the lines' rate;
/// 3. **encode** the other formats asked for as the pipeline does: MP3 with LAME (ffmpeg's
///    `libmp3lame`, VBR quality 4), M4B with ffmpeg's AAC at 64 kbit/s.
struct ByHandBaseline: Sendable {
    /// Seconds as whole milliseconds, within 0 to an hour (pauses come from code, but never trap).
    static func milliseconds(_ seconds: Double) -> Int {
        seconds.isFinite ? Int((min(max(seconds, 0), 3_600) * 1000).rounded()) : 0
    }

    var ffmpeg: FFmpegTool
    /// Scratch folder (created).
    var directory: URL
    /// Processes for the steps that run one per line.
    var processes: Int
    /// The formats the table read delivers (WAV always).
    var formats: [AudioFileFormat]
    var target: LoudnessTarget = .standard
    var pauses: TableReadTimeline.Pauses = .standard

    /// Seconds each step took, and the second loudnorm pass's summary.
    struct Outcome: Sendable {
        var join: Double
        var normalize: Double
        var encode: Double
        var loudness: LoudnormSummary
        /// The delivered files.
        var files: [URL]
        var total: Double { join + normalize + encode }
    }

    /// A file is read whole only to find its format; nothing a line's WAV should come near.
    static let maximumLineFileSize = 256 << 20

    /// Joins `files` (one WAV per line of `lines`, in the same order), normalizes and encodes.
    /// - Throws: ``BenchError`` or ``AudioToolError`` when a step fails.
    func finish(_ lines: [TableReadLine], files: [URL]) async throws -> Outcome {
        guard lines.count == files.count, !lines.isEmpty else { throw BenchError("by hand: \(files.count) files for \(lines.count) lines") }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var clock = ContinuousClock.now
        func lap() -> Double {
            let now = ContinuousClock.now
            defer { clock = now }
            return (now - clock) / .seconds(1)
        }
        let joined = try await join(lines, files: files)
        let joinSeconds = lap()
        let master = directory.appendingPathComponent("table-read.wav")
        let (ffmpeg, target) = (self.ffmpeg, self.target)
        let loudness = try await BlockingWork.run { () throws -> LoudnormSummary in
            let measured = try LoudnormSummary.parse(try ffmpeg.run(["-i", joined.file.path, "-af", LoudnormSummary.firstPass(target),
                                                                     "-f", "null", "-"]))
            return try LoudnormSummary.parse(try ffmpeg.run(["-y", "-i", joined.file.path, "-af", measured.secondPass(target),
                                                             "-ar", "\(joined.sampleRate)", "-c:a", "pcm_s16le", "-f", "wav", master.path]))
        }
        let normalizeSeconds = lap()
        var delivered = [master]
        for format in formats where format != .wav {
            let output = directory.appendingPathComponent("table-read.\(format.rawValue)")
            let codec: [String] = switch format {
            case .wav: []
            case .mp3: ["-c:a", "libmp3lame", "-q:a", "4", "-id3v2_version", "3", "-f", "mp3"]
            case .m4b: ["-c:a", "aac", "-b:a", "64k", "-f", "ipod"]
            }
            _ = try await BlockingWork.run { try ffmpeg.run(["-y", "-i", master.path] + codec + [output.path]) }
            delivered.append(output)
        }
        return Outcome(join: joinSeconds, normalize: normalizeSeconds, encode: lap(), loudness: loudness, files: delivered)
    }

    /// Step 1: the joined WAV and its sample rate.
    private func join(_ lines: [TableReadLine], files: [URL]) async throws -> (file: URL, sampleRate: Int) {
        // Every voice speaks at one rate; the first line's is the read's (as the assembler does).
        var formats: [String: WAVFormat] = [:]
        for (line, file) in zip(lines, files) where formats[line.voice] == nil {
            formats[line.voice] = try Self.format(of: file)
        }
        guard let format = formats[lines[0].voice] else { throw BenchError("by hand: no format for the first line") }
        var files = files
        var resampling: [(String, [String])] = []
        for index in files.indices where formats[lines[index].voice]?.sampleRate != format.sampleRate {
            let output = directory.appendingPathComponent("resampled-\(index).wav")
            resampling.append((ffmpeg.executable.path, ["-hide_banner", "-nostats", "-nostdin", "-loglevel", "error", "-y", "-i",
                                                        files[index].path, "-ar", "\(format.sampleRate)", "-c:a", "pcm_s16le", output.path]))
            files[index] = output
        }
        if !resampling.isEmpty { _ = try await ProcessPool.run(resampling, processes: processes) }

        let timeline = TableReadTimeline(lines: lines.map {
            TableReadTimeline.Line(chapterIndex: $0.chapterIndex, orderIndex: $0.orderIndex, sceneIndex: $0.sceneIndex, speaker: $0.speaker,
                                   text: $0.text, duration: 0, deliveryPause: $0.delivery?.pauseBefore ?? 0)
        }, pauses: pauses)
        var fileByLine: [String: URL] = [:]
        for (line, file) in zip(lines, files) { fileByLine["\(line.chapterIndex)/\(line.orderIndex)"] = file }
        var entries: [(pauseMilliseconds: Int, file: URL)] = []
        for cue in timeline.cues {
            guard let file = fileByLine["\(cue.line.chapterIndex)/\(cue.line.orderIndex)"] else { continue }
            entries.append((Self.milliseconds(cue.pauseBefore), file))
        }
        let tail = Self.milliseconds(pauses.edge)
        let (ffmpeg, directory, planned) = (self.ffmpeg, self.directory, entries)
        let joined = directory.appendingPathComponent("joined.wav")
        try await BlockingWork.run {
            var silences: [Int: URL] = [:]
            for milliseconds in Set(planned.map(\.pauseMilliseconds) + [tail]) where milliseconds > 0 {
                let file = directory.appendingPathComponent("silence-\(milliseconds).wav")
                _ = try ffmpeg.run(["-y", "-f", "lavfi", "-i", "anullsrc=r=\(format.sampleRate):cl=\(format.channels == 1 ? "mono" : "stereo")",
                                    "-t", String(format: "%.3f", Double(milliseconds) / 1000), "-c:a", "pcm_s16le", file.path])
                silences[milliseconds] = file
            }
            let list = directory.appendingPathComponent("join.txt")
            try Self.concatList(planned.map { (silences[$0.pauseMilliseconds], $0.file) } + [(silences[tail], nil)])
                .write(to: list, atomically: true, encoding: .utf8)
            _ = try ffmpeg.run(["-y", "-f", "concat", "-safe", "0", "-i", list.path, "-c:a", "pcm_s16le", "-f", "wav", joined.path])
        }
        return (joined, format.sampleRate)
    }

    /// An ffmpeg concat demuxer list: each entry's silence (when it has one), then its file.
    static func concatList(_ entries: [(silence: URL?, file: URL?)]) -> String {
        func line(_ url: URL) -> String { "file '" + url.path.replacingOccurrences(of: "'", with: "'\\''") + "'\n" }
        return "ffconcat version 1.0\n" + entries.map { (($0.silence.map(line) ?? "") + ($0.file.map(line) ?? "")) }.joined()
    }

    /// The format of the WAV file at `url`.
    private static func format(of url: URL) throws -> WAVFormat {
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maximumLineFileSize else { throw BenchError("\(url.path) is \(size) bytes, more than a line's WAV should be") }
        do { return try WAVHeader(parsing: try Data(contentsOf: url)).format } catch {
            throw BenchError("\(url.path) is not a usable WAV: \(error)")
        }
    }
}
