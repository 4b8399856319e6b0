import Foundation
@testable import Speech
import Testing

/// ffmpeg's loudnorm report and the streamed level scan, without running ffmpeg.
@Suite("Loudness: loudnorm's report and streamed levels", .timeLimit(.minutes(1)))
struct LoudnessTests {
    /// The shape ffmpeg 5.1 prints on standard error with `print_format=json` (values made up).
    static let loudnormOutput = """
        size=N/A time=00:02:11.00 bitrate=N/A speed= 180x
        video:0kB audio:49128kB subtitle:0kB other streams:0kB global headers:0kB muxing overhead: unknown
        [Parsed_loudnorm_0 @ 0x55d0c0ffee00] \n{
        \t"input_i" : "-22.40",
        \t"input_tp" : "-0.30",
        \t"input_lra" : "5.10",
        \t"input_thresh" : "-32.75",
        \t"output_i" : "-16.20",
        \t"output_tp" : "-1.50",
        \t"output_lra" : "4.60",
        \t"output_thresh" : "-26.58",
        \t"normalization_type" : "dynamic",
        \t"target_offset" : "0.20"
        }

        """

    @Test func theReportIsReadFromTheEndOfStandardError() throws {
        let report = try LoudnessNormalizer.report(Self.loudnormOutput)
        #expect(report.input == LoudnessMeasurement(integratedLUFS: -22.4, truePeakDBTP: -0.3, loudnessRange: 5.1, threshold: -32.75))
        #expect(report.output.integratedLUFS == -16.2 && report.output.truePeakDBTP == -1.5)
        #expect(report.mode == "dynamic" && report.offset == 0.2)
    }

    @Test func aMissingOrBrokenReportIsAnErrorThatQuotesFFmpeg() {
        #expect(throws: AudioToolError.self) { try LoudnessNormalizer.report("Conversion failed!\n") }
        let noNumber = Self.loudnormOutput.replacingOccurrences(of: "\"-22.40\"", with: "\"-inf x\"")
        #expect(throws: AudioToolError(description: "ffmpeg's loudnorm measurement has no number for input_i")) {
            try LoudnessNormalizer.report(noNumber)
        }
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
        let streamed = try AudioLevels(wavFileAt: path)
        let whole = try AudioLevels(wav: wav)
        #expect(streamed == whole)
        #expect(abs(streamed.duration - 3) < 1e-9)
        #expect(throws: WAVError.self) { try AudioLevels(wavFileAt: "/nonexistent.wav") }
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
