import Foundation
import Testing
@testable import Screenplay

@Suite("Whole-script fixtures", .timeLimit(.minutes(2)))
struct FixtureTests {
    @Test func fountainFixtureTitlePage() throws {
        let doc = try ScreenplayReader.read(try fixture("night-ferry.fountain"), fileName: "night-ferry.fountain")
        #expect(doc.format == .fountain)
        #expect(doc.titlePage == [
            TitlePageEntry(key: "Title", values: ["_**THE NIGHT FERRY**_"]),
            TitlePageEntry(key: "Credit", values: ["Written by"]),
            TitlePageEntry(key: "Author", values: ["Reparto Test Team"]),
            TitlePageEntry(key: "Source", values: ["An original story for the test suite"]),
            TitlePageEntry(key: "Draft date", values: ["1 March 2025"]),
            TitlePageEntry(key: "Contact", values: ["Reparto Studios", "12 Harbour Lane"]),
        ])
    }

    static let fountainExpected: [Element] = [
        el(.sectionHeading, "Prologue", 0, 1, level: 1),
        el(.synopsis, "The ferry leaves at midnight.", 0, 2),
        el(.action, "FADE IN:", 0, 3),
        el(.sceneHeading, "EXT. HARBOUR - NIGHT", 0, 4, scene: "1"),
        el(.action, "Rain hammers the *empty* pier. A ferry horn sounds.", 0, 5),
        el(.action, "    Lanterns sway in the wind.", 0, 6),
        el(.character, "MARA (V.O.)", 0, 7, name: "MARA", ext: "V.O."),
        el(.dialogue, "Every crossing has a price.", 0, 8),
        el(.comment, "Check the horn sound effect.", 0, 9),
        el(.sectionHeading, "Act One", 1, 1, level: 2),
        el(.sceneHeading, "INT. FERRY CABIN - CONTINUOUS", 1, 2, scene: "2A"),
        el(.action, "MARA, 40s, shakes out an umbrella.", 1, 3),
        el(.character, "JONAS", 1, 4, name: "JONAS"),
        el(.parenthetical, "(quietly)", 1, 5),
        el(.dialogue, "You came.\nNobody else did.", 1, 6),
        el(.character, "MARA", 1, 7, name: "MARA"),
        el(.dialogue, "Of course I came.", 1, 8),
        el(.character, "JONAS", 1, 9, name: "JONAS", dual: true),
        el(.dialogue, "Of course you did.", 1, 10),
        el(.transition, "CUT TO:", 1, 11),
        el(.sceneHeading, "INSIDE THE ENGINE ROOM", 1, 12),
        el(.action, "SILENCE. Only the engines.", 1, 13),
        el(.character, "McCLANE", 1, 14, name: "McCLANE"),
        el(.dialogue, "Yippee.", 1, 15),
        el(.centered, "THE END?", 1, 16),
        el(.lyrics, "Row, row, row the boat", 1, 17),
        el(.lyrics, "Gently down the stream", 1, 18),
        el(.boneyard, "An alternative opening\nwhere the ferry sinks.", 1, 19),
        el(.pageBreak, "", 1, 20),
        el(.sectionHeading, "Act Two", 2, 1, level: 2),
        el(.sceneHeading, "INT./EXT. CAR - DAY", 2, 2),
        el(.transition, "SMASH CUT TO:", 2, 3),
        el(.sectionHeading, "The Crossing", 2, 4, level: 3),
        el(.character, "JONAS", 2, 5, name: "JONAS"),
        el(.dialogue, "Hold on.\n\nHold on to me.", 2, 6),
        el(.transition, "FADE OUT.", 2, 7),
    ]

    @Test func fountainFixtureElements() throws {
        let doc = try ScreenplayReader.read(try fixture("night-ferry.fountain"), fileName: "night-ferry.fountain")
        #expect(doc.elements.count == Self.fountainExpected.count)
        for (got, want) in zip(doc.elements, Self.fountainExpected) { #expect(got == want) }
        #expect(Set(doc.elements.map(\.type)) == Set(ElementType.allCases))
    }

    @Test func fountainFixtureWithCRLFAndBOMParsesTheSame() throws {
        let text = String(decoding: try fixture("night-ferry.fountain"), as: UTF8.self)
        let crlf = [0xEF, 0xBB, 0xBF] + Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)
        let doc = try ScreenplayReader.read(crlf, fileName: "x.fountain")
        #expect(doc.elements == Self.fountainExpected)
        #expect(doc.titlePage.count == 6)
    }

    static let fdxExpected: [Element] = [
        el(.transition, "FADE IN:", 0, 1),
        el(.sceneHeading, "EXT. HARBOUR - NIGHT", 0, 2, scene: "1"),
        el(.synopsis, "Mara waits for the last ferry.", 0, 3),
        el(.action, "Rain hammers the *empty* pier.", 0, 4),
        el(.character, "MARA (V.O.)", 0, 5, name: "MARA", ext: "V.O."),
        el(.dialogue, "Every crossing has a price.", 0, 6),
        el(.sectionHeading, "ACT ONE", 1, 1, level: 2),
        el(.sceneHeading, "INT. FERRY CABIN - CONTINUOUS", 1, 2, scene: "2A"),
        el(.action, "Mara shakes out an umbrella.", 1, 3),
        el(.comment, "Check the umbrella prop.", 1, 4),
        el(.character, "MARA", 1, 5, name: "MARA"),
        el(.dialogue, "You came.", 1, 6),
        el(.character, "JONAS", 1, 7, name: "JONAS", dual: true),
        el(.parenthetical, "(quietly)", 1, 8),
        el(.dialogue, "Of course I came.", 1, 9),
        el(.action, "CLOSE ON THE ENGINE", 1, 10),
        el(.action, "A bell rings.", 1, 11),
        el(.centered, "INTERMISSION", 1, 12),
        el(.lyrics, "Row, row, row the boat", 1, 13),
        el(.action, "MARA, JONAS", 1, 14),
        el(.action, "Mystery text", 1, 15),
        el(.pageBreak, "", 1, 16),
        el(.action, "_**THE STORM**_", 1, 17),
        el(.transition, "CUT TO:", 1, 18),
        el(.centered, "END OF ACT ONE", 1, 19),
        el(.sectionHeading, "ACT TWO", 2, 1, level: 2),
        el(.sceneHeading, "EXT. DECK - DAWN", 2, 2),
        el(.action, "5 \\* 3 = 15 & counting", 2, 3),
        el(.transition, "FADE OUT.", 2, 4),
        el(.comment, "Global note.", 2, 5),
    ]

    @Test func fdxFixture() throws {
        let doc = try ScreenplayReader.read(try fixture("night-ferry.fdx"), fileName: "night-ferry.fdx")
        #expect(doc.format == .fdx)
        #expect(doc.elements.count == Self.fdxExpected.count)
        for (got, want) in zip(doc.elements, Self.fdxExpected) { #expect(got == want) }
        #expect(doc.titlePage == [
            TitlePageEntry(key: "Title", values: ["**The Night Ferry**"]),
            TitlePageEntry(key: "Credit", values: ["Written by"]),
            TitlePageEntry(key: "Author", values: ["Reparto Test Team"]),
            TitlePageEntry(key: "Contact", values: ["Reparto Studios", "12 Harbour Lane"]),
        ])
        #expect(doc.elements[22].plainText == "THE STORM")
        #expect(doc.elements[27].plainText == "5 * 3 = 15 & counting")
    }

    static let markdownExpected: [Element] = [
        el(.sectionHeading, "The Night Ferry", 0, 1, level: 1),
        el(.action, "Treatment notes for the *ferry* story.\nSecond line of the paragraph.", 0, 2),
        el(.sectionHeading, "Act One", 1, 1, level: 2),
        el(.action, "- Mara arrives\n- Jonas waits", 1, 2),
        el(.action, "1. First beat\n2. Second beat", 1, 3),
        el(.action, "The sea keeps its secrets.", 1, 4),
        el(.action, "indented code line", 1, 5),
        el(.action, "fenced code", 1, 6),
        el(.comment, "reviewer: tighten this", 1, 7),
        el(.sectionHeading, "Act Two", 2, 1, level: 2),
        el(.pageBreak, "", 2, 2),
        el(.comment, "<div>\nraw html\n</div>", 2, 3),
        el(.sectionHeading, "Setext One", 2, 4, level: 1),
    ]

    @Test func markdownFixture() throws {
        let doc = try ScreenplayReader.read(try fixture("treatment.md"), fileName: "treatment.md")
        #expect(doc.format == .markdown)
        #expect(doc.titlePage == [
            TitlePageEntry(key: "title", values: ["The Night Ferry"]),
            TitlePageEntry(key: "author", values: ["Reparto Test Team"]),
        ])
        #expect(doc.elements.count == Self.markdownExpected.count)
        for (got, want) in zip(doc.elements, Self.markdownExpected) { #expect(got == want) }
    }
}
