import Foundation
import RepartoTestSupport
@testable import Speech
import Testing
import Threading

/// The ACX master made by ffmpeg from speech-like signals (a loud one that peaks at full scale
/// with plosive bursts, a quiet one 35 dB down), checked by ffmpeg's own meters on the MP3 it
/// wrote: `astats` (RMS, sample peak, the quietest 0.5 s), `ebur128` (true peak), `ffprobe` and
/// the MP3's frames (192 kbit/s CBR at 44.1 kHz).
@Suite("Audio masters: the ACX master, measured by ffmpeg", .timeLimit(.minutes(3)))
struct AudioMasteringTests {
    static func ffmpeg() throws -> FFmpegTool {
        try #require(FFmpegTool.locate(), "ffmpeg is needed (scripts/services up installs it)")
    }

    @Test(arguments: [("loud", -0.1), ("quiet", -35.0)])
    func aSpeechLikeSignalMeetsACXOnItsMP3(name: String, peakDBFS: Double) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("acx-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.wav").path
        // Digital silence at both ends and between the words, as the assembler writes it.
        let speech = SpeechLikeSignal.make(seconds: 12, peakDBFS: peakDBFS, sampleRate: 22_050, seed: 3)
        let padded = [Float](repeating: 0, count: 16_538) + speech.samples + [Float](repeating: 0, count: 55_125)
        try PCMAudio(sampleRate: 22_050, channels: 1, samples: padded).wavData(encoding: .integer).write(to: URL(fileURLWithPath: input))
        let wav = folder.appendingPathComponent("master.wav").path, mp3 = folder.appendingPathComponent("master.mp3").path
        let mastering = AudioMastering(ffmpeg: try Self.ffmpeg())
        let outcome = try await BlockingWork.run {
            try mastering.master(input, wav: wav, mp3: mp3, tags: AudioTags(title: "Signal", artist: "Reparto"))
        }
        #expect(outcome.problems.isEmpty, "\(outcome.problems)")
        #expect(!FileManager.default.fileExists(atPath: mp3 + ".decoded"), "the decoded copy is removed")

        let heard = try await FFmpegMeter.levels(mp3)
        #expect((-23 ... -18).contains(heard.rmsDBFS), "\(name): \(heard)")
        #expect(abs(heard.rmsDBFS - -20) <= 1, "\(name): aimed at the middle: \(heard)")
        #expect(heard.samplePeakDBFS <= -3, "\(name): \(heard)")
        #expect(heard.truePeakDBTP <= -3, "\(name): \(heard)")
        #expect(heard.noiseFloorDBFS <= -60, "\(name): \(heard)")
        #expect(heard.noiseFloorDBFS > -90, "\(name): room tone, not digital silence: \(heard)")
        // The meter agrees with ffmpeg's on the same file.
        #expect(abs(outcome.mp3.rmsDBFS - heard.rmsDBFS) < 0.2, "\(outcome.mp3) vs \(heard)")
        #expect(abs(outcome.mp3.samplePeakDBFS - heard.samplePeakDBFS) < 0.2, "\(outcome.mp3) vs \(heard)")

        let probe = try await FFmpegMeter.probe(mp3)
        #expect(probe.codec == "mp3" && probe.sampleRate == 44_100 && probe.bitRate == 192_000 && probe.channels == 1, "\(probe)")
        #expect(Set(probe.packetSizes).isSubset(of: [626, 627]), "every frame of 192 kbit/s at 44.1 kHz: \(Set(probe.packetSizes))")
        #expect(probe.hasInfoHeader, "LAME marks a CBR file Info, a VBR one Xing")
        // The WAV master is at the MP3's rate too, and as long as the source.
        let master = try WAVHeader(parsing: try Data(contentsOf: URL(fileURLWithPath: wav)))
        #expect(master.format.sampleRate == 44_100)
        #expect(abs(master.duration - Double(padded.count) / 22_050) < 0.01)
    }

    /// The same input mastered twice gives the same bytes (a redelivered job rewrites identical files).
    @Test func masteringIsDeterministic() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("acx-again-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.wav").path
        try SpeechLikeSignal.make(seconds: 4, peakDBFS: -6, sampleRate: 16_000, seed: 9).wavData(encoding: .integer)
            .write(to: URL(fileURLWithPath: input))
        let mastering = AudioMastering(ffmpeg: try Self.ffmpeg())
        var files: [Data] = []
        for run in 0..<2 {
            let wav = folder.appendingPathComponent("m\(run).wav").path, mp3 = folder.appendingPathComponent("m\(run).mp3").path
            _ = try await BlockingWork.run { try mastering.master(input, wav: wav, mp3: mp3, tags: AudioTags(title: "x")) }
            files += [try Data(contentsOf: URL(fileURLWithPath: wav)), try Data(contentsOf: URL(fileURLWithPath: mp3))]
        }
        #expect(files[0] == files[2] && files[1] == files[3])
    }

    @Test func digitalSilenceCannotBeMasteredAndSaysSo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("acx-silent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.wav").path
        try PCMAudio(sampleRate: 16_000, channels: 1, samples: [Float](repeating: 0, count: 16_000)).wavData(encoding: .integer)
            .write(to: URL(fileURLWithPath: input))
        let mastering = AudioMastering(ffmpeg: try Self.ffmpeg())
        let error = await #expect(throws: AudioToolError.self) {
            _ = try await BlockingWork.run {
                try mastering.master(input, wav: input + ".m.wav", mp3: input + ".mp3", tags: AudioTags(title: "x"))
            }
        }
        #expect(error?.description.contains("digital silence") == true)
    }
}

/// A voice-like test signal: a buzz at 110–150 Hz with its harmonics falling off, under a
/// syllable envelope (four a second), words of 0.8 s with 0.2 s gaps, each word opening with a
/// 10 ms burst of noise (a plosive, the peaks that set a speech file's crest factor), scaled so
/// its highest sample is at `peakDBFS`.
enum SpeechLikeSignal {
    static func make(seconds: Double, peakDBFS: Double, sampleRate: Int, seed: UInt64) -> PCMAudio {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        func noise() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }
        let rate = Double(sampleRate)
        var phase = 0.0
        var samples: [Double] = []
        for i in 0..<Int(seconds * rate) {
            let t = Double(i) / rate
            let inWord = t.truncatingRemainder(dividingBy: 1)
            phase += (130 + 20 * sin(2 * .pi * 0.7 * t)) / rate
            guard inWord < 0.8 else { samples.append(0); continue }
            let envelope = pow(sin(.pi * (inWord * 4).truncatingRemainder(dividingBy: 1)), 2) * (0.6 + 0.4 * sin(2 * .pi * 0.3 * t))
            var voice = 0.0
            for harmonic in 1...10 { voice += sin(2 * .pi * Double(harmonic) * phase) / Double(harmonic) }
            let burst = inWord < 0.01 ? 2.5 * noise() : 0
            samples.append(0.3 * envelope * voice + burst)
        }
        let peak = samples.map(abs).max() ?? 1
        let scale = pow(10, peakDBFS / 20) / peak
        return PCMAudio(sampleRate: sampleRate, channels: 1, samples: samples.map { Float($0 * scale) })
    }
}
