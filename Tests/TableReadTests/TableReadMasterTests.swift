import ArgumentParser
import Assets
import Foundation
import RepartoConfiguration
import RepartoTestSupport
@testable import Speech
@testable import TableRead
import Testing
import Threading

/// The table read assembled for each master from espeak-ng's lines (a loud read as espeak-ng
/// speaks, peaking near full scale, and a quiet one 35 dB down), no database: the files are
/// checked by ffmpeg's own meters, apart from the master's. ACX: `astats` on the MP3 (RMS −23 to
/// −18 dB, sample peak ≤ −3 dB, the quietest 0.5 s ≤ −60 dB and not digital silence), `ebur128`
/// (true peak ≤ −3 dBTP), `silencedetect` (0.5–1 s of room tone at the head, 1–5 s at the
/// tail), `ffprobe` (192 kbit/s CBR at 44.1 kHz). Podcast: `ebur128` (−16 ±1 LUFS, ≤ −1 dBTP).
@Suite(.timeLimit(.minutes(4)))
struct TableReadMasterTests {
    static let script: [(speaker: String, text: String)] = [
        ("LENA", "We dock at six, whatever the captain says."),
        ("MARCO", "Not in this weather. Look at the sky."),
        ("LENA", "Then we wait, and we keep the lamps lit."),
        ("MARCO", "Fine. But the coffee is on you."),
    ]

    /// The script's lines as espeak-ng says them, scaled by `gainDB`.
    static func lines(gainDB: Double) async throws -> [Data] {
        let espeak = EspeakProvider()
        var lines: [Data] = []
        for (index, line) in script.enumerated() {
            let audio = try await espeak.synthesize(text: line.text, voice: index % 2 == 0 ? "en-us" : "en-gb", language: "en",
                                                    options: .standard)
            let pcm = try PCMAudio(wav: audio.data)
            let scale = Float(pow(10, gainDB / 20))
            lines.append(PCMAudio(sampleRate: pcm.sampleRate, channels: pcm.channels, samples: pcm.samples.map { $0 * scale })
                .wavData(encoding: .integer))
        }
        return lines
    }

    struct Assembled: Sendable {
        var root: URL
        var outputs: TableReadOutputs
        var report: TableReadReport
        func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
    }

    /// Stores `lines` on a fresh asset volume and assembles them as one scene.
    static func assemble(_ lines: [Data], master: AudioMaster, formats: [AudioFileFormat]) async throws -> Assembled {
        let ffmpeg = try #require(FFmpegTool.locate(), "ffmpeg is needed (scripts/services up installs it)")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("master-\(master.rawValue)-\(UUID().uuidString)")
        return try await BlockingWork.run {
            let store = try AssetStore(root: root)
            var assembly: [AssemblyLine] = []
            for (index, data) in lines.enumerated() {
                let record = try store.writeBlocking(data, to: "audio/lines/\(index).wav", mimeType: "audio/wav")
                let levels = try AudioLevels(wav: data)
                let line = TableReadLine(chapterIndex: 0, orderIndex: index + 1, elementType: "dialogue", speaker: script[index].speaker,
                                         voice: "en-us", provider: "espeak-ng", language: "en", text: script[index].text,
                                         contentKey: "key-\(index)", sceneIndex: 1)
                assembly.append(AssemblyLine(line: line, filePath: record.path, sha256: record.sha256, durationSeconds: levels.duration,
                                             peakDBFS: levels.peakDBFS, rmsDBFS: levels.rmsDBFS))
            }
            let input = TableReadAssembler.Input(productionID: UUID(), documentID: nil, sourceName: "ferry.fountain", lines: assembly,
                                                 failures: [:], sceneHeadings: [1: "INT. CABIN - NIGHT"], formats: formats,
                                                 title: "Night Ferry", author: "Ana Ortiz", master: master)
            let (outputs, report) = try TableReadAssembler(store: store, ffmpeg: ffmpeg).assemble(input)
            return Assembled(root: root, outputs: outputs, report: report)
        }
    }

    @Test(arguments: [("loud", 0.0), ("quiet", -35.0)])
    func theACXMasterMeetsACXOnTheMP3(name: String, gainDB: Double) async throws {
        let read = try await Self.assemble(try await Self.lines(gainDB: gainDB), master: .acx, formats: [.m4b])
        defer { try? FileManager.default.removeItem(at: read.root) }
        let loudness = try #require(read.report.loudness)
        #expect(loudness.master == .acx && loudness.targetLUFS == nil && loudness.mode == "limited", "\(loudness)")
        let acx = try #require(loudness.acx, "\(loudness.reason ?? "")")
        #expect(acx.passes, "\(name): \(acx.problems)")
        // ACX implies the MP3, asked for or not; the M4B asked for comes too.
        let folder = "productions/\(read.report.productionID.uuidString.lowercased())"
        #expect(read.report.encodings == ["\(folder)/table-read.mp3", "\(folder)/table-read.m4b"], "\(read.report.encodingErrors ?? [])")
        #expect(read.report.encodingErrors == [])
        let mp3 = read.path("\(folder)/table-read.mp3")

        let heard = try await FFmpegMeter.levels(mp3)
        #expect((-23 ... -18).contains(heard.rmsDBFS), "\(name): \(heard)")
        #expect(heard.samplePeakDBFS <= -3 && heard.truePeakDBTP <= -3, "\(name): \(heard)")
        #expect(heard.noiseFloorDBFS <= -60 && heard.noiseFloorDBFS > -90, "\(name): room tone, no digital silence: \(heard)")
        let silences = try await FFmpegMeter.silences(mp3)
        let head = try #require(silences.first, "\(name): no room tone at the head")
        #expect(head.start < 0.01 && (0.5 ... 1).contains(head.end), "\(name): head \(head)")
        let duration = heard.duration
        let tail = try #require(silences.last)
        #expect(abs(tail.end - duration) < 0.05 && (1 ... 5).contains(tail.end - tail.start), "\(name): tail \(tail) of \(duration)")
        let probe = try await FFmpegMeter.probe(mp3)
        #expect(probe.sampleRate == 44_100 && probe.bitRate == 192_000 && probe.channels == 1, "\(probe)")
        #expect(Set(probe.packetSizes).isSubset(of: [626, 627]) && probe.hasInfoHeader, "CBR: \(Set(probe.packetSizes))")
        // The report's figures are the MP3's.
        #expect(abs((acx.rmsDBFS ?? 0) - heard.rmsDBFS) < 0.2 && abs((acx.samplePeakDBFS ?? 0) - heard.samplePeakDBFS) < 0.2)
        #expect(abs(acx.headSeconds - head.end) < 0.1 && abs(acx.tailSeconds - (tail.end - tail.start)) < 0.1)

        // The WAV master has ACX's levels at 44.1 kHz, and the subtitles are still on its words.
        let wav = read.path(read.outputs.audio.path)
        #expect(try WAVHeader(parsing: try Data(contentsOf: URL(fileURLWithPath: wav))).format.sampleRate == 44_100)
        let master = try await FFmpegMeter.levels(wav)
        #expect((-23 ... -18).contains(master.rmsDBFS) && master.samplePeakDBFS <= -3, "\(master)")
        let vtt = String(decoding: try Data(contentsOf: URL(fileURLWithPath: read.path(read.outputs.subtitles.path))), as: UTF8.self)
        let firstCue = try #require(vtt.split(separator: "\n").first { $0.contains(" --> ") })
        let firstStart = try #require(Double(firstCue.prefix(12).dropFirst(6)), "\(firstCue)")  // 00:00:SS.mmm
        #expect((0.5 ... 0.75).contains(firstStart), "the first line 0.75 s in, less the quiet it starts with: \(firstCue)")
        #expect(abs(read.outputs.durationSeconds - duration) < 0.05)
    }

    @Test(arguments: [("loud", 0.0), ("quiet", -35.0)])
    func thePodcastMasterIsTodaysLoudness(name: String, gainDB: Double) async throws {
        let read = try await Self.assemble(try await Self.lines(gainDB: gainDB), master: .podcast, formats: [.mp3])
        defer { try? FileManager.default.removeItem(at: read.root) }
        let loudness = try #require(read.report.loudness)
        #expect(loudness.master == .podcast && loudness.targetLUFS == -16 && loudness.acx == nil, "\(loudness)")
        let wav = try await FFmpegMeter.levels(read.path(read.outputs.audio.path))
        #expect(abs(wav.integratedLUFS - -16) <= 1 && wav.truePeakDBTP <= -1, "\(name): \(wav)")
        // The MP3 stays LAME VBR at the voices' rate.
        let mp3 = try #require(read.report.encodings?.first)
        let probe = try await FFmpegMeter.probe(read.path(mp3))
        #expect(probe.sampleRate == 22_050 && !probe.hasInfoHeader, "\(probe)")
        let vtt = String(decoding: try Data(contentsOf: URL(fileURLWithPath: read.path(read.outputs.subtitles.path))), as: UTF8.self)
        #expect(vtt.contains("00:00:00.250 --> "), "the podcast's quarter second at the head")
    }

    // MARK: the request and the option

    @Test func aStoredRequestWithoutAMasterIsAPodcastAndAnUnknownOneIsRefused() throws {
        var object = try #require(try JSONSerialization.jsonObject(
            with: try JSONEncoder().encode(TableReadRequest(sourcePath: "sources/a.fountain", sourceName: "a.fountain"))) as? [String: Any])
        #expect(object["master"] == nil, "a podcast request is stored as before masters existed")
        #expect(try JSONDecoder().decode(TableReadRequest.self, from: try JSONSerialization.data(withJSONObject: object)).master == nil)
        object["master"] = "acx"
        #expect(try JSONDecoder().decode(TableReadRequest.self, from: try JSONSerialization.data(withJSONObject: object)).master == .acx)
        for hostile: Any in ["ACX", "audible", "", 3, ["acx"]] {
            object["master"] = hostile
            #expect(throws: DecodingError.self, "\(hostile)") {
                try JSONDecoder().decode(TableReadRequest.self, from: try JSONSerialization.data(withJSONObject: object))
            }
        }
    }

    @Test func theOptionIsValidatedInOneLine() throws {
        let configuration = ConfigurationValues(environment: [:])
        #expect(try TableReadOptions.parse([]).submissionOptions(configuration: configuration).master == .podcast)
        let acx = try TableReadOptions.parse(["--master", "acx", "--formats", "wav"]).submissionOptions(configuration: configuration)
        #expect(acx.master == .acx && acx.formats == [.wav])
        #expect(TableReadClient.Options().master == .podcast)
        let error = #expect(throws: (any Error).self) {
            try TableReadOptions.parse(["--master", "audible"]).submissionOptions(configuration: configuration)
        }
        #expect("\(error.map { "\($0)" } ?? "")" == "unknown master 'audible' for --master (podcast, acx)")
    }

    /// What `reparto results` and `submit --wait` print about the master, from the report's figures.
    @Test func theResultsSayWhichMasterAndWhatItMeasured() throws {
        var results = try JSONDecoder().decode(TableReadResults.self, from: Data("""
            {"productionID":"00000000-0000-0000-0000-000000000001","name":"a","state":"completed","stage":"assemble",
             "source":"a.fountain","stages":[],"characters":[],"scenes":[],"failures":[],"warnings":[],"lines":[]}
            """.utf8))
        #expect(results.master == nil && TableReadText.master(results) == nil, "an older read says nothing")
        results.master = .acx
        #expect(TableReadText.master(results) == "acx", "asked for, not assembled yet")
        let levels = AudioMasterLevels.acx
        var acx = TableReadLoudness.ACX(
            targetRMSDBFS: -20, rmsRange: [-23, -18], peakCeilingDB: -3, noiseFloorCeilingDBFS: -60, roomToneDBFS: -70,
            headRange: [0.5, 1], tailRange: [1, 5], mp3BitRateKbps: levels.mp3BitRateKbps, sampleRate: levels.sampleRate,
            rmsDBFS: -20.04, samplePeakDBFS: -4.24, truePeakDBTP: -4.16, noiseFloorDBFS: -70.7, headSeconds: 0.75, tailSeconds: 2.5,
            gainDB: 4.7, limitDB: -4, encodes: 1, problems: [])
        results.mastering = TableReadLoudness(master: .acx, targetLUFS: nil, truePeakCeilingDBTP: -3, mode: "limited", acx: acx)
        #expect(TableReadText.master(results)
                == "acx: RMS -20.0 dB, peak -4.2 dB, noise floor -70.7 dB, room tone 0.75 s + 2.50 s, MP3 192 kbit/s CBR 44.1 kHz: passes")
        acx.problems = ["peak -2.9 dB is over -3.0 dB"]
        results.mastering?.acx = acx
        #expect(TableReadText.master(results)?.hasSuffix("44.1 kHz: peak -2.9 dB is over -3.0 dB") == true)
        results.mastering = TableReadLoudness(master: .acx, targetLUFS: nil, truePeakCeilingDBTP: -3, mode: "skipped",
                                              reason: "ffmpeg not found")
        #expect(TableReadText.master(results) == "acx: not mastered (ffmpeg not found)")
        results.mastering = TableReadLoudness(master: .podcast, targetLUFS: -16, truePeakCeilingDBTP: -1, mode: "linear",
                                              integratedLUFS: -16.04, truePeakDBTP: -1.32)
        #expect(TableReadText.master(results) == "podcast: -16.0 LUFS, true peak -1.3 dBTP")
        // The report, with its −∞ levels left out, round-trips.
        let report = try JSONEncoder().encode(results.mastering)
        #expect(try JSONDecoder().decode(TableReadLoudness.self, from: report) == results.mastering)
    }

    @Test func quietFramesAreCountedFromEitherEnd() {
        var samples = [Int16](repeating: 0, count: 100)
        samples[10] = 3  // under 45 dB below the peak: still quiet
        samples[30] = 10_000
        samples[70] = -20_000
        samples[95] = 50
        let body = samples.withUnsafeBytes { Data($0) }
        let format = WAVFormat.pcm16(sampleRate: 8000)
        #expect(TableReadAssembler.quietFrames(body, format: format, atEnd: false) == 30)
        #expect(TableReadAssembler.quietFrames(body, format: format, atEnd: true) == 29)
        #expect(TableReadAssembler.quietFrames(Data(count: 40), format: format, atEnd: false) == 20)
    }
}
