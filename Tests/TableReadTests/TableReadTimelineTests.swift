@testable import TableRead
import Testing

@Suite("table-read timeline and WebVTT", .timeLimit(.minutes(1)))
struct TableReadTimelineTests {
    static func line(_ chapter: Int, _ order: Int, scene: Int?, _ speaker: String, _ text: String = "x",
                     _ duration: Double? = 1) -> TableReadTimeline.Line {
        .init(chapterIndex: chapter, orderIndex: order, sceneIndex: scene, speaker: speaker, text: text, duration: duration)
    }

    @Test func pausesGrowWithTheBreakAndLinesPlayInScriptOrder() {
        let pauses = TableReadTimeline.Pauses(chapter: 4, scene: 3, speakerChange: 2, sameSpeaker: 1, edge: 0.5)
        let timeline = TableReadTimeline(lines: [
            Self.line(1, 1, scene: 2, "narrator"),        // chapter change (listed first, plays last)
            Self.line(0, 1, scene: 1, "narrator"),
            Self.line(0, 2, scene: 1, "narrator"),       // same speaker
            Self.line(0, 3, scene: 1, "ADA"),            // speaker change
            Self.line(0, 4, scene: 2, "ADA"),            // scene change
        ], pauses: pauses)
        #expect(timeline.cues.map(\.line.orderIndex) == [1, 2, 3, 4, 1])
        #expect(timeline.cues.map(\.pauseBefore) == [0.5, 1, 2, 3, 4])
        #expect(timeline.cues.map(\.start) == [0.5, 2.5, 5.5, 9.5, 14.5])
        #expect(timeline.duration == 15.5 + 0.5)
        #expect(timeline.chapters.map(\.index) == [0, 1])
        #expect(timeline.chapters.map(\.start) == [0.5, 14.5])
        #expect(timeline.chapters.map(\.end) == [10.5, 15.5])
        #expect(timeline.scenes.map(\.index) == [1, 2])
    }

    @Test func linesWithoutAudioAreLeftOutAndListed() {
        let timeline = TableReadTimeline(lines: [
            Self.line(0, 1, scene: 1, "ADA"), Self.line(0, 2, scene: 1, "BOB", "lost", nil), Self.line(0, 3, scene: 1, "ADA"),
        ])
        #expect(timeline.cues.count == 2)
        #expect(timeline.missing.map(\.text) == ["lost"])
        #expect(timeline.cues[1].pauseBefore == TableReadTimeline.Pauses.standard.sameSpeaker)
    }

    @Test func emptyTimelineHasNoDuration() {
        #expect(TableReadTimeline(lines: []).duration == 0)
    }

    @Test func webVTTHasACuePerLineWithTheSpeakerAndEscapedText() {
        let timeline = TableReadTimeline(lines: [
            Self.line(0, 1, scene: 1, "narrator", "INT. KITCHEN", 1.25),
            Self.line(0, 2, scene: 1, "ADA", "Fish & chips <now> -->\n\nplease", 3723.5),
        ], pauses: .init(edge: 0))
        let vtt = WebVTT.document(for: timeline)
        #expect(vtt == """
            WEBVTT

            1
            00:00:00.000 --> 00:00:01.250
            <v Narrator>INT. KITCHEN

            2
            00:00:01.700 --> 01:02:05.200
            <v ADA>Fish &amp; chips &lt;now&gt; --&gt;
            please

            """)
    }

    @Test func timestampsRoundToMilliseconds() {
        #expect(WebVTT.timestamp(0) == "00:00:00.000")
        #expect(WebVTT.timestamp(59.9996) == "00:01:00.000")
        #expect(WebVTT.timestamp(-1) == "00:00:00.000")
    }
}
