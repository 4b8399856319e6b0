import Foundation
@testable import RepartoBench
import Speech
import Testing

@Suite("bench pipeline by hand: shares, Piper's outputs, the concat list, loudnorm's summary", .timeLimit(.minutes(1)))
struct PipelineByHandTests {
    @Test func linesAreSharedInContiguousRunsThatDifferByAtMostOne() {
        #expect(LineShares.split(10, into: 3) == [0..<4, 4..<7, 7..<10])
        #expect(LineShares.split(1500, into: 2) == [0..<750, 750..<1500])
        #expect(LineShares.split(2, into: 4) == [0..<1, 1..<2])
        #expect(LineShares.split(0, into: 2).isEmpty)
        #expect(LineShares.split(5, into: 0) == [0..<5])
    }

    @Test func piperOutputsAreOrderedByTheirTimestampNotAsText() throws {
        #expect(try PiperCommandLine.ordered(["1000.wav", "999.wav", "10000.wav"]) == ["999.wav", "1000.wav", "10000.wav"])
        #expect(throws: BenchError.self) { try PiperCommandLine.ordered(["1000.wav", "notes.txt"]) }
    }

    @Test func aLineIsOneInputLine() {
        #expect(PiperCommandLine.inputLine("  Wait.\nNo —\r\nstop. ") == "Wait. No — stop.")
    }

    @Test func theConcatListPutsEachSilenceBeforeItsLineAndQuotesPaths() {
        let list = ByHandBaseline.concatList([
            (URL(fileURLWithPath: "/w/silence-250.wav"), URL(fileURLWithPath: "/w/0.wav")),
            (nil, URL(fileURLWithPath: "/w/it's.wav")),
            (URL(fileURLWithPath: "/w/silence-250.wav"), nil),
        ])
        #expect(list == """
            ffconcat version 1.0
            file '/w/silence-250.wav'
            file '/w/0.wav'
            file '/w/it'\\''s.wav'
            file '/w/silence-250.wav'

            """)
    }

    @Test func loudnormsSummaryIsReadFromTheEndOfWhatFFmpegSaid() throws {
        let stderr = """
            Input #0, wav, from 'joined.wav':
            [Parsed_loudnorm_0 @ 0x5581] {curly} 
            [Parsed_loudnorm_0 @ 0x5582] 
            {
            \t"input_i" : "-27.61",
            \t"input_tp" : "-4.47",
            \t"input_lra" : "18.06",
            \t"input_thresh" : "-39.20",
            \t"output_i" : "-16.58",
            \t"output_tp" : "-1.50",
            \t"output_lra" : "14.78",
            \t"output_thresh" : "-27.71",
            \t"normalization_type" : "dynamic",
            \t"target_offset" : "0.58"
            }
            """
        let summary = try LoudnormSummary.parse(stderr)
        #expect(summary == LoudnormSummary(inputI: -27.61, inputTP: -4.47, inputLRA: 18.06, inputThreshold: -39.2, outputI: -16.58,
                                           outputTP: -1.5, targetOffset: 0.58, normalizationType: "dynamic"))
        #expect(summary.secondPass(.standard) == "loudnorm=I=-16.0:TP=-1.0:LRA=11.0:measured_I=-27.61:measured_TP=-4.47:"
                + "measured_LRA=18.06:measured_thresh=-39.20:offset=0.58:linear=true:print_format=json")
    }

    @Test func aSilentInputsInfiniteLoudnessIsRejectedByName() {
        let stderr = #"{ "input_i" : "-inf", "input_tp" : "-inf", "input_lra" : "0.00", "input_thresh" : "-70.00", "output_i" : "-inf", "#
            + #""output_tp" : "-inf", "target_offset" : "inf" }"#
        #expect { try LoudnormSummary.parse(stderr) } throws: { "\($0)".contains("input_i") }
        #expect(throws: BenchError.self) { try LoudnormSummary.parse("no summary at all") }
    }

    @Test func aStatLineGivesTheCommandAndParentEvenWithParenthesesInTheName() {
        #expect(PeakMemory.parse(stat: "4242 (python (piper)) S 17 4242 17 0 -1") ?? ("", 0) == ("python (piper)", 17))
        #expect(PeakMemory.parse(stat: "garbage") == nil)
    }
}
