import Foundation
@testable import Speech
import Testing
import Threading

/// The in-process EBU R128 meter against the standard's own figures: its filter at 48 kHz, a
/// 1 kHz tone's loudness, both gates, the true peak between samples, and silence.
@Suite("LoudnessMeter: BS.1770 loudness and true peak", .timeLimit(.minutes(1)))
struct LoudnessMeterTests {
    /// `seconds` of a sine at `frequency` with peak `amplitude` (full scale 1) and phase `phase`, as 16-bit PCM.
    static func tone(_ frequency: Double, amplitude: Double, seconds: Double, sampleRate: Int = 48000, phase: Double = 0) -> Data {
        var data = Data()
        let count = Int(seconds * Double(sampleRate))
        data.reserveCapacity(count * 2)
        for n in 0..<count {
            let value = amplitude * sin(2 * Double.pi * frequency * Double(n) / Double(sampleRate) + phase)
            let sample = Int16(clamping: Int((value * 32767).rounded()))
            withUnsafeBytes(of: sample.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    @Test func theKWeightingAt48kHzIsTheStandardsPublishedFilter() {
        let filter = KWeighting(sampleRate: 48000)
        // ITU-R BS.1770-4, tables 1 and 2.
        #expect(abs(filter.shelf.b0 - 1.53512485958697) < 1e-8)
        #expect(abs(filter.shelf.b1 - -2.69169618940638) < 1e-8)
        #expect(abs(filter.shelf.b2 - 1.19839281085285) < 1e-8)
        #expect(abs(filter.shelf.a1 - -1.69065929318241) < 1e-8)
        #expect(abs(filter.shelf.a2 - 0.73248077421585) < 1e-8)
        #expect(abs(filter.highPass.a1 - -1.99004745483398) < 1e-8)
        #expect(abs(filter.highPass.a2 - 0.99007225036621) < 1e-8)
    }

    @Test(arguments: [48000, 22050])
    func aOneKilohertzToneReadsItsLevelLessThreeDecibels(sampleRate: Int) {
        // A 1 kHz sine with peak −20 dBFS in one channel: −23.01 LUFS (EBU Tech 3341's calibration,
        // in mono), whatever the sample rate.
        var meter = LoudnessMeter(sampleRate: sampleRate)
        meter.append(pcm16: Self.tone(1000, amplitude: 0.1, seconds: 5, sampleRate: sampleRate))
        let reading = meter.measurement
        #expect(abs(reading.integratedLUFS - -23.01) < 0.05, "\(reading)")
        #expect(abs(reading.samplePeakDBFS - -20) < 0.01)
        #expect(abs(reading.rmsDBFS - -23.01) < 0.01)
        #expect(abs(reading.duration - 5) < 0.001)
        #expect(reading.loudnessRange < 0.1)
    }

    @Test func silenceIsGatedOutAbsolutelyAndQuietPassagesRelatively() {
        var meter = LoudnessMeter(sampleRate: 48000)
        meter.append(pcm16: Self.tone(1000, amplitude: 0.1, seconds: 5))
        meter.appendSilence(frames: 48000 * 20)  // 20 s of silence: below −70 LUFS, not averaged in
        meter.append(pcm16: Self.tone(1000, amplitude: 0.003, seconds: 5))  // −53 LUFS: 30 LU down, under the −10 LU gate
        let reading = meter.measurement
        // 47 whole 400 ms blocks of the tone, and 3 that overlap the silence by 25, 50 and 75 %;
        // the last pass both gates too (−24.3, −26.0, −29.0 LUFS), so they weigh in.
        let expected = -23.01 + 10 * log10((47 + 0.75 + 0.5 + 0.25) / 50)
        #expect(abs(reading.integratedLUFS - expected) < 0.03, "\(reading)")
        #expect(abs(reading.duration - 30) < 0.001)
        // Without the gates the mean over all 30 s would be about 7.8 dB lower.
        var ungated = 0.0
        for level in [-23.01, -53.5] { ungated += pow(10, level / 10) * 5 }
        #expect(reading.integratedLUFS > 10 * log10(ungated / 30) + 7)
    }

    @Test func truePeakFindsWhatLiesBetweenSamples() {
        // A quarter-rate sine sampled 45° off its crests: every sample is at 0.707 of the peak,
        // so the true peak is 3 dB above the sample peak.
        var meter = LoudnessMeter(sampleRate: 48000)
        meter.append(pcm16: Self.tone(12000, amplitude: 0.5, seconds: 1, phase: Double.pi / 4))
        let reading = meter.measurement
        #expect(abs(reading.samplePeakDBFS - (20 * log10(0.5) - 3.01)) < 0.05, "\(reading)")
        #expect(abs(reading.truePeakDBTP! - 20 * log10(0.5)) < 0.2, "\(reading)")
    }

    @Test func theTruePeakIsTheSameWhetherTheAudioArrivesWholeOrInPieces() {
        let signal = Self.tone(9000, amplitude: 0.6, seconds: 2, sampleRate: 22050, phase: 0.3)
            + Self.tone(300, amplitude: 0.2, seconds: 1, sampleRate: 22050)
        var whole = LoudnessMeter(sampleRate: 22050)
        whole.append(pcm16: signal)
        var pieces = LoudnessMeter(sampleRate: 22050)
        var offset = 0
        for size in [2, 998, 4096, 34, 77_778, 1_000_000] where offset < signal.count {  // bytes: whole samples
            let end = min(offset + size, signal.count)
            pieces.append(pcm16: signal[offset..<end])
            offset = end
        }
        #expect(whole.measurement == pieces.measurement)
        #expect(whole.measurement.truePeakDBTP! > whole.measurement.samplePeakDBFS)
    }

    @Test func nothingButSilenceHasNoLoudness() {
        var meter = LoudnessMeter(sampleRate: 22050)
        meter.appendSilence(frames: 22050 * 3)
        let reading = meter.measurement
        #expect(reading.integratedLUFS == -.infinity)
        #expect(reading.samplePeakDBFS == -.infinity)
        #expect(reading.truePeakDBTP == -.infinity)
    }

    @Test func aWAVFileIsMeasuredByStreamingIt() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("meter-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let body = Self.tone(1000, amplitude: 0.1, seconds: 3, sampleRate: 22050)
        try (WAVWriter.header(format: .pcm16(sampleRate: 22050), dataLength: body.count) + body).write(to: URL(fileURLWithPath: path))
        var direct = LoudnessMeter(sampleRate: 22050)
        direct.append(pcm16: body)
        #expect(try LoudnessMeter.measure(wavFileAt: path) == direct.measurement)
        #expect(try LoudnessMeter.truePeak(wavFileAt: path) == direct.measurement.truePeakDBTP)
        #expect(throws: WAVError.self) { try LoudnessMeter.measure(wavFileAt: path + ".missing") }
    }
}

/// The meter on real speech against ffmpeg's `ebur128` filter, an implementation of its own.
@Suite("LoudnessMeter against ffmpeg on espeak-ng speech", .timeLimit(.minutes(2)))
struct LoudnessMeterAgainstFFmpegTests {
    @Test func speechMeasuresAsFFmpegMeasuresIt() async throws {
        let ffmpeg = try #require(FFmpegTool.locate(environment: ProcessInfo.processInfo.environment), "ffmpeg is needed (scripts/services up installs it)")
        let provider = EspeakProvider()
        var body = Data()
        var format: WAVFormat?
        for (index, text) in ["Where were you last night?", "Out. Walking. The river was high.", "You're lying, and you know it.",
                              "QUIET! Someone is coming up the stairs."].enumerated() {
            let audio = try await provider.synthesize(text: text, voice: index % 2 == 0 ? "en-us" : "en-gb", language: "en",
                                                      options: .init(volume: index == 3 ? 1.8 : 1))
            let header = try WAVHeader(parsing: audio.data)
            format = header.format
            body += audio.data[(audio.data.startIndex + header.dataOffset)...]
            body += Data(count: header.format.sampleRate / 2 * header.format.blockAlign)  // half a second's pause
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("speech-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try (WAVWriter.header(format: try #require(format), dataLength: body.count) + body).write(to: URL(fileURLWithPath: path))

        let ours = try LoudnessMeter.measure(wavFileAt: path)
        let theirs = try await BlockingWork.run { try LoudnessNormalizer(ffmpeg: ffmpeg).measureWithFFmpeg(path, truePeak: true) }
        #expect(ours.integratedLUFS.isFinite)
        #expect(abs(ours.integratedLUFS - theirs.integratedLUFS) <= 0.15, "ours \(ours), ffmpeg \(theirs)")
        #expect(abs(try #require(ours.truePeakDBTP) - theirs.peakDB) <= 0.3, "ours \(ours), ffmpeg \(theirs)")
    }
}
