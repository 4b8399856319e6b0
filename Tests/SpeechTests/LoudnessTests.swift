import Foundation
@testable import Speech
import Testing

/// ffmpeg's ebur128 summary and the streamed level scan, without running ffmpeg.
@Suite("Loudness: the ebur128 summary and streamed levels", .timeLimit(.minutes(1)))
struct LoudnessTests {
    /// The shape ffmpeg 5.1's `ebur128` filter prints last on standard error (values made up; the
    /// per-block lines before it also start with "I:" and must not be read).
    static func ebur128Output(peakHeading: String = "True peak") -> String {
        """
        [Parsed_ebur128_0 @ 0x55d0c0ffee00] t: 11.0  TARGET:-23 LUFS    M: -25.1 S: -24.0     I: -20.1 LUFS       LRA:  10.0 LU  FTPK: -3.1 dBFS  TPK: -1.0 dBFS
        [Parsed_ebur128_0 @ 0x55d0c0ffee00] Summary:

          Integrated loudness:
            I:         -22.4 LUFS
            Threshold: -32.8 LUFS

          Loudness range:
            LRA:         5.1 LU
            Threshold: -42.9 LUFS
            LRA low:   -26.0 LUFS
            LRA high:  -20.9 LUFS

          \(peakHeading):
            Peak:       -0.3 dBFS

        """
    }

    @Test func theSummaryIsReadFromTheEndOfStandardError() throws {
        let truePeak = try LoudnessNormalizer.summary(Self.ebur128Output())
        #expect(truePeak == LoudnessMeasurement(integratedLUFS: -22.4, peakDB: -0.3, peakIsTrue: true, loudnessRange: 5.1, threshold: -32.8))
        #expect(truePeak.truePeakDBTP == -0.3)
        let sample = try LoudnessNormalizer.summary(Self.ebur128Output(peakHeading: "Sample peak"))
        #expect(sample.peakDB == -0.3 && !sample.peakIsTrue && sample.truePeakDBTP == nil)
    }

    @Test func aMissingOrBrokenSummaryIsAnErrorThatSaysWhat() {
        #expect(throws: AudioToolError.self) { try LoudnessNormalizer.summary("Conversion failed!\n") }
        let noNumber = Self.ebur128Output().replacingOccurrences(of: "I:         -22.4 LUFS", with: "I:         x LUFS")
        #expect(throws: AudioToolError(description: "ffmpeg's ebur128 summary has no number for I:")) {
            try LoudnessNormalizer.summary(noNumber)
        }
        let noPeak = Self.ebur128Output(peakHeading: "Some peak")
        #expect(throws: AudioToolError(description: "ffmpeg's ebur128 summary has no peak")) { try LoudnessNormalizer.summary(noPeak) }
    }

    @Test func ffmpegIsFoundOnThePathOrWhereTheVariableSays() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loudness-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fake = directory.appendingPathComponent("ffmpeg")
        try Data("#!/bin/sh\n".utf8).write(to: fake)
        #expect(FFmpegTool.locate(environment: ["PATH": directory.path]) == nil, "not executable")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        #expect(FFmpegTool.locate(environment: ["PATH": "/nonexistent:\(directory.path)"])?.executable.path == fake.path)
        #expect(FFmpegTool.locate(environment: ["PATH": directory.path, "REPARTO_FFMPEG": "/nonexistent/ffmpeg"]) == nil)
    }

    /// Streaming a file gives the levels that reading it whole gives, past a chunk before `data`.
    @Test func streamedLevelsMatchTheWholeFile() throws {
        let samples: [Float] = (0..<48_000).map { (index: Int) -> Float in
            let envelope = Double(index % 7) / 7
            return Float(sin(Double(index) * 0.05) * 0.4 * envelope)
        }
        var wav = PCMAudio(sampleRate: 16_000, channels: 1, samples: samples).wavData(encoding: .integer)
        // A LIST chunk between fmt and data, as ffmpeg writes one.
        let list = Data("LIST".utf8) + Data([10, 0, 0, 0]) + Data("INFOISFT\0\0".utf8)
        let header = try WAVHeader(parsing: wav)
        wav.insert(contentsOf: list, at: header.dataOffset - 8)
        wav.replaceSubrange(4..<8, with: withUnsafeBytes(of: UInt32(wav.count - 8).littleEndian) { Data($0) })
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("levels-\(UUID().uuidString).wav").path
        try wav.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let streamed = try LoudnessMeter.measure(wavFileAt: path)
        let whole = try AudioLevels(wav: wav)
        #expect(streamed.samplePeakDBFS == whole.peakDBFS && streamed.rmsDBFS == whole.rmsDBFS && streamed.duration == whole.duration)
        #expect(abs(streamed.duration - 3) < 1e-9)
        #expect(throws: WAVError.self) { try LoudnessMeter.measure(wavFileAt: "/nonexistent.wav") }
    }
}

@Suite("Audio tags as an ffmpeg metadata file", .timeLimit(.minutes(1)))
struct AudioTagsTests {
    @Test func specialCharactersAreEscapedAndChaptersAreInMilliseconds() {
        let tags = AudioTags(title: "A=B; C#1 \\ D", artist: "Ana\nOrtiz", chapters: [
            .init(title: "INT. CABIN - NIGHT", start: 0.25, end: 12.5),
            .init(title: "empty", start: 3, end: 3),
            .init(title: "EXT. DECK", start: 12.5, end: 20.0004),
        ])
        #expect(tags.ffmetadata == """
            ;FFMETADATA1
            title=A\\=B\\; C\\#1 \\\\ D
            artist=Ana\\
            Ortiz

            [CHAPTER]
            TIMEBASE=1/1000
            START=250
            END=12500
            title=INT. CABIN - NIGHT

            [CHAPTER]
            TIMEBASE=1/1000
            START=12500
            END=20000
            title=EXT. DECK

            """)
    }
}
