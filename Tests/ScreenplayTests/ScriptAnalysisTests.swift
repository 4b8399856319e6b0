@testable import Screenplay
import Testing

@Suite("script analysis", .timeLimit(.minutes(2)))
struct ScriptAnalysisTests {
    static func analyse(_ fountain: String) throws -> ScriptAnalysis {
        ScriptAnalysis(document: try ScreenplayReader.read(Array(fountain.utf8), fileName: "t.fountain"))
    }

    @Test func scenesGetSettingLocationTimeAndLength() throws {
        let analysis = try Self.analyse("""
            INT. KITCHEN - NIGHT

            The kettle screams.

            EXT./INT. CAR — MOVING

            .FLASHBACK

            EST. CITY SKYLINE - DAWN #12A#

            INTERVIEW ROOM

            """)
        #expect(analysis.scenes.map(\.setting) == [.interior, .interiorExterior, nil, .establishing])
        #expect(analysis.scenes.map(\.location) == ["KITCHEN", "CAR", "FLASHBACK", "CITY SKYLINE"])
        #expect(analysis.scenes.map(\.timeOfDay) == ["NIGHT", "MOVING", nil, "DAWN"])
        #expect(analysis.scenes.map(\.index) == [1, 2, 3, 4])
        #expect(analysis.scenes.allSatisfy { $0.eighths >= 1 })
        #expect(analysis.scenes[0].lineCount == 4, "heading and action, each with the blank line before it")
    }

    @Test func charactersCountDialogueWordsAndScenes() throws {
        let analysis = try Self.analyse("""
            INT. A - DAY

            ISOLDE
            One two three.

            MARC (V.O.)
            (softly)
            Four five.

            INT. B - DAY

            ISOLDE (CONT'D)
            Six.

            @McCLANE
            Yippee.
            """)
        #expect(analysis.characters.map(\.name) == ["ISOLDE", "MARC", "MCCLANE"])
        let isolde = try #require(analysis.characters.first)
        #expect(isolde.dialogueLines == 2 && isolde.words == 4 && isolde.scenes == [1, 2])
        #expect((isolde.firstChapter, isolde.firstOrder) == (0, 2))
        #expect(analysis.characters[1].words == 2, "parentheticals are not dialogue")
    }

    @Test func pagesFollowTheFiftyFiveLinePageAndPageBreaksFillThePage() throws {
        let action = String(repeating: "word ", count: 11)  // 55 characters: one printed line
        let body = (0..<27).map { _ in action }.joined(separator: "\n\n")  // 27 × (1 + 1) = 54 lines
        let oneFullPage = try Self.analyse("INT. X - DAY\n\n" + body)  // + 2 for the heading = 56
        #expect(oneFullPage.pageCount == 56.0 / 55.0)
        #expect(oneFullPage.estimatedSeconds == oneFullPage.pageCount * 60)
        let broken = try Self.analyse("INT. X - DAY\n\n===\n\nINT. Y - DAY")
        #expect(broken.pageCount == 57.0 / 55.0, "2 lines, the break fills to 55, then 2 more")
    }

    /// The numbers above are worked out by hand from the trade convention the model follows
    /// (Courier 12 pt, 55 printed lines to a page, a page a minute), so they restate that
    /// convention. These properties hold for any line model and catch a wrong one independently.
    @Test func pageCountsAreAdditiveAndPageBreaksEndOnWholePages() throws {
        let sceneA = "INT. A - DAY\n\nShe waits by the door, counting the seconds until the bell.\n\nBOB\nAre you coming?"
        let sceneB = "EXT. B - NIGHT\n\nRain.\n\nALICE\n(quietly)\nNo."
        let a = try Self.analyse(sceneA)
        let b = try Self.analyse(sceneB)
        let both = try Self.analyse(sceneA + "\n\n" + sceneB)
        #expect(abs(both.pageCount - (a.pageCount + b.pageCount)) < 1e-9, "scenes add up")
        #expect(abs(both.estimatedSeconds - (a.estimatedSeconds + b.estimatedSeconds)) < 1e-9)
        #expect(both.scenes.count == 2)
        // Ten copies of a scene take ten times its pages.
        let ten = try Self.analyse(Array(repeating: sceneA, count: 10).joined(separator: "\n\n"))
        #expect(abs(ten.pageCount - 10 * a.pageCount) < 1e-9)
        // A page break ends the page: what follows starts on a whole page, whatever came before.
        for copies in 1...3 {
            let before = try Self.analyse(Array(repeating: sceneA, count: copies).joined(separator: "\n\n"))
            let after = try Self.analyse(Array(repeating: sceneA, count: copies).joined(separator: "\n\n") + "\n\n===\n\n" + sceneB)
            #expect(abs(after.pageCount - (before.pageCount.rounded(.up) + b.pageCount)) < 1e-9)
        }
        // Longer text never takes fewer pages.
        let longer = try Self.analyse(sceneA + " And then some more words that need another printed line.")
        #expect(longer.pageCount > a.pageCount)
    }

    @Test func wrappingCountsWordsThatDoNotFit() {
        #expect(ScriptAnalysis.wrappedLines("", width: 10) == 1)
        #expect(ScriptAnalysis.wrappedLines("aaaa bbbb cc", width: 10) == 2)
        #expect(ScriptAnalysis.wrappedLines("aaaaaaaaaaaaaaaaaaaaaaaaa", width: 10) == 3)
        #expect(ScriptAnalysis.wrappedLines("a\nb", width: 10) == 2)
    }

    @Test func sceneIndexLooksUpTheEnclosingSceneWithinAChapter() throws {
        let analysis = try Self.analyse("""
            Before any scene.

            INT. A - DAY

            Inside A.

            ## Part two

            Between chapters.

            INT. B - DAY

            Inside B.
            """)
        #expect(analysis.sceneIndex(chapter: 0, order: 1) == nil)
        #expect(analysis.sceneIndex(chapter: 0, order: 3) == 1)
        #expect(analysis.sceneIndex(chapter: 1, order: 2) == nil, "a chapter break ends the scene")
        #expect(analysis.sceneIndex(chapter: 1, order: 4) == 2)
    }
}
