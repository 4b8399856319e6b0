import Foundation
import Postgres
import Speech
import TableRead
import Testing

/// Parentheticals as delivery and the pronunciation lexicon, end to end against the real
/// PostgreSQL, RabbitMQ and espeak-ng, measured on the assembled audio.
@Suite("table-read delivery and lexicon", .serialized, .timeLimit(.minutes(5)))
struct TableReadDeliveryTests {
    static let script = """
        DEV
        They are here in the hall.

        DEV
        (whispering)
        They are here in the hall.

        DEV
        Wait.

        DEV
        Wait.

        DEV
        (beat)
        Wait.

        DEV
        (to Isolde)
        Isolde, come.

        """

    @Test func aWhisperIsQuieterABeatIsSilenceAndALexiconRemakesOnlyItsLines() async throws {
        let pipeline = try await TableReadTests.Pipeline.start()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-delivery-\(UUID().uuidString).fountain")
        try Data(Self.script.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        // espeak-ng only (by default casting also uses flite): its phonemes and amplitude are what is measured.
        let espeak = CastOverrides(provider: EspeakProvider.providerID)
        let results = try await pipeline.finish(try await pipeline.tableReads.submit(file: file, options: .init(cast: espeak)))
        #expect(results.state == "completed", "\(results.failures)")
        let files = try #require(results.files)
        let audio = try PCMAudio(wav: try pipeline.file(files.audio))
        let cues = Self.cueTimes(String(decoding: try pipeline.file(files.subtitles), as: UTF8.self))
        #expect(cues.count == 6)

        // The same words, whispered: quieter as generated, and as much quieter in the assembled read
        // but for what the peak limiter takes off the plain line's peaks: normalization applies one
        // gain to the whole read.
        let generated = try await pipeline.cluster.postgres.query("""
            SELECT g.file_path FROM production_lines l JOIN generated_content g USING (content_key)
            WHERE l.production_id = $1 AND l.order_index IN (2, 5) ORDER BY l.order_index
            """, [results.productionID]).compactMap { $0.string("file_path") }
        let lineLevels = try generated.map { try PCMAudio(wav: try pipeline.file($0)).rmsDBFS }
        #expect(lineLevels.count == 2 && lineLevels[1] < lineLevels[0] - 8, "generated lines: \(lineLevels) dBFS")
        let plain = Self.level(audio, cues[0]), whispered = Self.level(audio, cues[1])
        #expect(whispered < plain - 6, "in the read: whispered \(whispered) dBFS, plain \(plain) dBFS")

        // "Wait." three times with identical audio: the silence before the third is the one before the
        // second plus the beat, and each line's sound starts where its subtitle does.
        let silence = Self.silentFrames(audio)
        let before = [2, 3, 4].map { Self.silenceBefore(onsetAfter: cues[$0].start, silent: silence) }
        let beat = before[2].seconds - before[1].seconds
        #expect(abs(beat - 0.8) < 0.03, "silence before: \(before.map(\.seconds)) s")
        for (cue, measured) in zip([2, 3, 4].map { cues[$0] }, before) {
            #expect(measured.onset >= cue.start - 0.011 && measured.onset < cue.start + 0.1, "onset \(measured.onset), cue \(cue.start)")
        }

        // What enrich stored: the whisper's style, the beat, the unknown parenthetical as evidence.
        let stored = try await pipeline.cluster.postgres.query("""
            SELECT delivery->>'parenthetical' AS p, delivery->>'style' AS s FROM production_lines
            WHERE production_id = $1 AND delivery IS NOT NULL ORDER BY order_index
            """, [results.productionID])
        #expect(stored.map { $0.string("p") } == ["whispering", "beat", "to Isolde"])
        #expect(stored.map { $0.string("s") } == ["whispering", nil, nil])

        // A lexicon: only the line it changes is generated again; the subtitles keep the script's spelling.
        let lexicon = try PronunciationLexicon(entries: ["Isolde": .init(respelling: "ee-ZOL-duh", phonemes: "i:z'0ld@")])
        let again = try await pipeline.finish(try await pipeline.tableReads.submit(file: file, options: .init(cast: espeak, lexicon: lexicon)))
        #expect(again.state == "completed", "\(again.failures)")
        #expect(again.stages.first { $0.name == "generate" }?.total == 1)
        let subtitles = String(decoding: try pipeline.file(try #require(again.files).subtitles), as: UTF8.self)
        #expect(subtitles.contains("<v DEV>Isolde, come."))
        let spoken = try await pipeline.cluster.postgres.query(
            "SELECT spoken_text FROM production_lines WHERE production_id = $1 AND spoken_text IS NOT NULL", [again.productionID])
        #expect(spoken.map { $0.string("spoken_text") } == ["[[i:z'0ld@]], come."])
        try await pipeline.stop()
    }

    struct Cue { var start: Double; var end: Double }

    /// The cue times of a WebVTT document, in order.
    static func cueTimes(_ vtt: String) -> [Cue] {
        func seconds(_ stamp: Substring) -> Double {
            let parts = stamp.split(separator: ":").compactMap { Double($0) }
            return parts.reduce(0) { $0 * 60 + $1 }
        }
        return vtt.split(separator: "\n").filter { $0.contains(" --> ") }.map { line in
            let ends = line.components(separatedBy: " --> ")
            return Cue(start: seconds(Substring(ends[0])), end: seconds(Substring(ends[1])))
        }
    }

    /// RMS in dBFS of the audio between a cue's start and end.
    static func level(_ audio: PCMAudio, _ cue: Cue) -> Double {
        let from = Int(cue.start * Double(audio.sampleRate)), to = min(audio.frameCount, Int(cue.end * Double(audio.sampleRate)))
        let slice = PCMAudio(sampleRate: audio.sampleRate, channels: 1, samples: Array(audio.samples[from..<to]))
        return slice.rmsDBFS
    }

    /// Per 5 ms frame: true when nothing in it rises above −50 dBFS.
    static func silentFrames(_ audio: PCMAudio) -> [Bool] {
        let size = audio.sampleRate / 200
        return stride(from: 0, to: audio.frameCount, by: size).map { start in
            audio.samples[start..<min(start + size, audio.frameCount)].allSatisfy { abs($0) < 0.00316 }
        }
    }

    /// The first sound at or after `time` (seconds) and the length of the silence right before it.
    static func silenceBefore(onsetAfter time: Double, silent: [Bool]) -> (onset: Double, seconds: Double) {
        let frame = 1 / 200.0
        var onset = max(0, Int(time / frame) - 2)
        while onset < silent.count, silent[onset] { onset += 1 }
        var start = onset
        while start > 0, silent[start - 1] { start -= 1 }
        return (Double(onset) * frame, Double(onset - start) * frame)
    }
}
