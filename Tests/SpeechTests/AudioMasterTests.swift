import Foundation
@testable import Speech
import Testing

/// The master's name, its requirements and the in-process ear that checks them, without ffmpeg.
@Suite("Audio masters: names, requirements, the master meter", .timeLimit(.minutes(1)))
struct AudioMasterTests {
    @Test func mastersAreParsedByNameAndAnythingElseIsOneLine() throws {
        #expect(try AudioMaster(parsing: "podcast") == .podcast)
        #expect(try AudioMaster(parsing: " ACX ") == .acx)
        #expect(throws: UnknownAudioMaster(name: "audible")) { try AudioMaster(parsing: "audible") }
        #expect(UnknownAudioMaster(name: "audible").description == "unknown master 'audible' for --master (podcast, acx)")
        #expect(throws: UnknownAudioMaster.self) { try AudioMaster(parsing: "") }
        // A hostile value is shown short and on one line.
        let hostile = UnknownAudioMaster(name: "x\n\u{1B}[2J" + String(repeating: "y", count: 500)).description
        #expect(!hostile.contains("\n") && !hostile.contains("\u{1B}") && hostile.count < 120)
    }

    @Test func theStoredNameDecodesStrictly() throws {
        #expect(try JSONDecoder().decode([AudioMaster].self, from: Data(#"["podcast","acx"]"#.utf8)) == [.podcast, .acx])
        for bad in [#"["ACX"]"#, #"["mp3"]"#, #"[1]"#, #"[null]"#] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode([AudioMaster].self, from: Data(bad.utf8)) }
        }
    }

    @Test func acxAlwaysDeliversTheMP3AndPodcastWhatWasAsked() {
        #expect(AudioMaster.podcast.deliveredFormats([.wav]) == [])
        #expect(AudioMaster.podcast.deliveredFormats([.wav, .m4b, .m4b]) == [.m4b])
        #expect(AudioMaster.acx.deliveredFormats([.wav]) == [.mp3])
        #expect(AudioMaster.acx.deliveredFormats([.m4b]) == [.mp3, .m4b])
        #expect(AudioMaster.acx.deliveredFormats([.m4b, .mp3]) == [.m4b, .mp3])
    }

    @Test func acxLevelsAreTheSubmissionRequirements() {
        let acx = AudioMasterLevels.acx
        #expect(acx.rmsRange == -23 ... -18 && acx.rmsRange.contains(acx.targetRMSDBFS))
        #expect(acx.targetRMSDBFS == -20 && acx.peakCeilingDB == -3 && acx.noiseFloorCeilingDBFS == -60)
        #expect(acx.headRange == 0.5 ... 1 && acx.headRange.contains(acx.headSeconds))
        #expect(acx.tailRange == 1 ... 5 && acx.tailRange.contains(acx.tailSeconds))
        #expect(acx.mp3BitRateKbps == 192 && acx.sampleRate == 44_100)
        // Room tone well under the noise floor, and never digital silence.
        #expect(acx.roomTone.levelDBFS <= acx.noiseFloorCeilingDBFS - 6 && acx.roomTone.levelDBFS > -90)
    }

    @Test func roomToneIsCalibratedUniformNoiseFromAFixedSeed() {
        let tone = RoomTone(levelDBFS: -70, seed: 7)
        // Uniform noise between ±a has an RMS of a/√3.
        #expect(abs(20 * log10(tone.amplitude / 3.0.squareRoot()) - -70) < 1e-9)
        #expect(tone.source(sampleRate: 44_100) == "anoisesrc=r=44100:color=white:amplitude=0.00054772:seed=7")
    }

    @Test func problemsNameEveryRequirementThatFails() {
        let good = AudioMasterReading(rmsDBFS: -20, samplePeakDBFS: -3.5, truePeakDBTP: -3.2, integratedLUFS: -19, noiseFloorDBFS: -70,
                                      headSeconds: 0.75, tailSeconds: 2.5, duration: 60)
        #expect(AudioMasterLevels.acx.problems(good).isEmpty)
        var bad = good
        bad.rmsDBFS = -17.5
        bad.truePeakDBTP = -2.9
        bad.noiseFloorDBFS = -.infinity
        bad.headSeconds = 0.2
        bad.tailSeconds = 6
        let problems = AudioMasterLevels.acx.problems(bad)
        #expect(problems == ["RMS -17.5 dB is outside -23.0 to -18.0 dB", "peak -2.9 dB is over -3.0 dB",
                             "it has stretches of digital silence", "0.20 s of room tone at the head, not 0.5 to 1.0 s",
                             "6.00 s of room tone at the tail, not 1.0 to 5.0 s"])
        bad = good
        bad.noiseFloorDBFS = -55
        #expect(AudioMasterLevels.acx.problems(bad) == ["noise floor -55.0 dB is over -60.0 dB"])
    }

    /// 0.75 s of noise at −70 dB RMS, 1 s of a tone at −20 dB RMS, 2 s of the noise: the meter
    /// finds the head, the tail, the floor and the RMS a hand calculation gives.
    @Test func theMeterReadsHeadTailNoiseFloorAndRMS() throws {
        let rate = 8000
        var random = SystemRandomNumberGenerator()
        let noise = 0.000316227766 * 3.0.squareRoot()
        var samples: [Float] = []
        func noiseFor(_ seconds: Double) {
            for _ in 0..<Int(seconds * Double(rate)) { samples.append(Float(Double.random(in: -noise...noise, using: &random))) }
        }
        noiseFor(0.75)
        let amplitude = 0.1 * 2.0.squareRoot()  // −20 dB RMS
        for i in 0..<rate { samples.append(Float(amplitude * sin(2 * .pi * 440 * Double(i) / Double(rate)))) }
        noiseFor(2)
        let wav = PCMAudio(sampleRate: rate, channels: 1, samples: samples).wavData(encoding: .integer)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("master-meter-\(UUID().uuidString).wav").path
        try wav.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reading = try AudioMasterMeter.measure(wavFileAt: path, levels: .acx, truePeak: true)
        #expect(abs(reading.headSeconds - 0.75) <= 0.011, "\(reading)")
        #expect(abs(reading.tailSeconds - 2) <= 0.011, "\(reading)")
        #expect(abs(reading.noiseFloorDBFS - -70) < 0.5, "\(reading)")
        // Energy: 1 s at −20 dB and 2.75 s at −70 dB over 3.75 s.
        let expected = 10 * log10((0.01 + 2.75 * 1e-7) / 3.75)
        #expect(abs(reading.rmsDBFS - expected) < 0.05, "\(reading) vs \(expected)")
        #expect(abs(reading.samplePeakDBFS - 20 * log10(amplitude)) < 0.05)
        #expect(try #require(reading.truePeakDBTP) >= reading.samplePeakDBFS)
        #expect(abs(reading.duration - 3.75) < 1e-9)
        #expect(reading.peakDB == reading.truePeakDBTP)
    }

    @Test func digitalSilenceHasNoFloorAndNoSound() throws {
        let wav = PCMAudio(sampleRate: 8000, channels: 2, samples: [Float](repeating: 0, count: 2 * 8000 * 2)).wavData(encoding: .integer)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("master-silence-\(UUID().uuidString).wav").path
        try wav.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reading = try AudioMasterMeter.measure(wavFileAt: path, levels: .acx, truePeak: false)
        #expect(reading.noiseFloorDBFS == -.infinity && reading.rmsDBFS == -.infinity)
        #expect(reading.headSeconds == 2 && reading.tailSeconds == 2)
        #expect(AudioMasterLevels.acx.problems(reading).contains("it has stretches of digital silence"))
        #expect(throws: WAVError.self) { try AudioMasterMeter.measure(wavFileAt: "/nonexistent.wav", levels: .acx, truePeak: false) }
    }
}
