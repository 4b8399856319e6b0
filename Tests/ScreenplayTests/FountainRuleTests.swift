import Testing
@testable import Screenplay

@Suite("Fountain rules", .timeLimit(.minutes(2)))
struct FountainRuleTests {
    // MARK: Scene headings
    @Test(arguments: ["INT. HOUSE - DAY", "EXT. ROAD", "EST. CITY", "INT./EXT. CAR", "INT/EXT CAR", "I/E CAR",
                      "int. kitchen - night", "Ext road"])
    func sceneHeadingPrefixes(_ line: String) {
        #expect(kinds("\n" + line + "\n\nAction.") == ["sceneHeading:\(line)", "action:Action."])
    }

    @Test(arguments: ["INTERIOR HOUSE", "EXTRA CREDIT", "ESTATE SALE"])
    func wordsThatOnlyStartLikeHeadingsAreNot(_ line: String) {
        #expect(fountain(line + "\n\nAction.").first?.type == .action)
    }

    @Test func sceneHeadingNeedsBlankLineBefore() {
        #expect(kinds("Some action.\nINT. HOUSE - DAY") == ["action:Some action.\nINT. HOUSE - DAY"])
    }

    @Test func forcedSceneHeadingButNotEllipsis() {
        #expect(kinds(".SNIPER SCOPE POV") == ["sceneHeading:SNIPER SCOPE POV"])
        #expect(kinds("...and then nothing.") == ["action:...and then nothing."])
    }

    @Test(arguments: [("INT. HOUSE - DAY #1#", "1"), ("INT. HOUSE - DAY #1A#", "1A"), ("INT. HOUSE - DAY #I-1-A#", "I-1-A"),
                      ("INT. HOUSE - DAY #110A.2#", "110A.2"), (".FLASHBACK #7#", "7")])
    func sceneNumbers(_ line: String, _ number: String) throws {
        let e = try #require(fountain(line).first)
        #expect(e.type == .sceneHeading)
        #expect(e.sceneNumber == number)
        #expect(!e.text.contains("#"))
    }

    @Test func invalidSceneNumberStaysInText() throws {
        let e = try #require(fountain("INT. HOUSE - DAY #1 A#").first)
        #expect(e.sceneNumber == nil)
        #expect(e.text == "INT. HOUSE - DAY #1 A#")
    }

    // MARK: Characters
    @Test func characterNeedsBlankBeforeAndTextAfter() {
        #expect(kinds("STEEL\nThe man's a myth!") == ["character:STEEL", "dialogue:The man's a myth!"])
        #expect(kinds("STEEL\n\nMore action.") == ["action:STEEL", "action:More action."])
        #expect(kinds("Action here.\nSTEEL\nHello") == ["action:Action here.\nSTEEL\nHello"])
    }

    @Test func characterExtensionsAnyCase() throws {
        let e = try #require(fountain("HANS (on the radio)\nWhat?").first)
        #expect(e.name == "HANS")
        #expect(e.extension == "on the radio")
        let v = try #require(fountain("MOM (O. S.)\nLuke!").first)
        #expect(v.extension == "O. S.")
        #expect(v.name == "MOM")
    }

    @Test func characterNeedsALetter() {
        #expect(fountain("R2D2\nBeep.").first?.type == .character)
        #expect(fountain("1234\nBeep.").first?.type == .action)
        #expect(fountain("Mixed Case\nBeep.").first?.type == .action)
    }

    @Test func forcedCharacterKeepsMixedCase() throws {
        let e = try #require(fountain("@McCLANE\nYippee ki-yay!").first)
        #expect(e.type == .character)
        #expect(e.name == "McCLANE")
        #expect(e.text == "McCLANE")
    }

    @Test func dualDialogueMarksTheSecondCue() {
        let els = fountain("BRICK\nScrew retirement.\n\nSTEEL ^\nScrew retirement.")
        #expect(els.map(\.type) == [.character, .dialogue, .character, .dialogue])
        #expect(els[0].dual == nil)
        #expect(els[2].dual == true)
        #expect(els[2].name == "STEEL")
        #expect(els[2].text == "STEEL")
    }

    @Test func multipleExtensionGroups() throws {
        let e = try #require(fountain("BOB (V.O.) (CONT'D)\nHi.").first)
        #expect(e.name == "BOB")
        #expect(e.extension == "V.O.) (CONT'D")
    }

    // MARK: Dialogue and parentheticals
    @Test func parentheticalsAndMultilineDialogue() {
        #expect(kinds("STEEL\n(starting the engine)\nSo much for retirement!\nLet's go.") ==
                ["character:STEEL", "parenthetical:(starting the engine)", "dialogue:So much for retirement!\nLet's go."])
    }

    @Test func twoSpaceLineKeepsDialogueTogether() {
        #expect(kinds("DEALER\nTen.\n  \nFour.\n\nAfter.") == ["character:DEALER", "dialogue:Ten.\n\nFour.", "action:After."])
    }

    @Test func singleSpaceLineIsBlank() {
        #expect(kinds("DEALER\nTen.\n \nFour.") == ["character:DEALER", "dialogue:Ten.", "action:Four."])
    }

    // MARK: Transitions
    @Test func transitions() {
        #expect(kinds("Action.\n\nCUT TO:\n\nINT. X - DAY") == ["action:Action.", "transition:CUT TO:", "sceneHeading:INT. X - DAY"])
        #expect(kinds("> Burn to White.") == ["transition:Burn to White."])
        #expect(kinds("Cut to:\n\nx").first == "action:Cut to:")
    }

    @Test func transitionNeedsBlankAfter() {
        #expect(fountain("CUT TO:\nHello").first?.type == .character)
    }

    // MARK: Centered, lyrics, sections, synopses, page breaks
    @Test func centered() {
        #expect(kinds(">THE END<") == ["centered:THE END"])
        #expect(kinds("> THE END <") == ["centered:THE END"])
    }

    @Test func lyrics() {
        #expect(kinds("~Willy Wonka! Willy Wonka!") == ["lyrics:Willy Wonka! Willy Wonka!"])
    }

    @Test func sectionsCountLevels() {
        let els = fountain("# Act\n\n## Sequence\n\n### Scene")
        #expect(els.map(\.level) == [1, 2, 3])
        #expect(els.map(\.text) == ["Act", "Sequence", "Scene"])
    }

    @Test func synopsis() {
        #expect(kinds("= Set up the characters.") == ["synopsis:Set up the characters."])
    }

    @Test func pageBreaks() {
        #expect(kinds("A.\n\n===\n\nB.") == ["action:A.", "pageBreak:", "action:B."])
        #expect(kinds("==========") == ["pageBreak:"])
        #expect(kinds("==") == ["synopsis:="])
    }

    // MARK: Action
    @Test func forcedActionAndLeadingWhitespace() {
        #expect(kinds("!SCANNING THE AISLES...\nWhere is that pit boss?") ==
                ["action:SCANNING THE AISLES...\nWhere is that pit boss?"])
        #expect(kinds("\tTabbed action.") == ["action:    Tabbed action."])
        #expect(kinds("   Indented.\n\t\tMore.") == ["action:   Indented.\n        More."])
    }

    @Test func forcedActionStopsSceneHeading() {
        #expect(kinds("!INT. NOT A HEADING") == ["action:INT. NOT A HEADING"])
    }

    // MARK: Notes and boneyard
    @Test func notesStandaloneAndInline() {
        #expect(kinds("[[A note\nacross lines.]]") == ["comment:A note\nacross lines."])
        #expect(kinds("He runs. [[fast]]\nHe stops.") == ["action:He runs.", "comment:fast", "action:He stops."])
    }

    @Test func noteCannotSpanAnEmptyLine() {
        #expect(kinds("[[open\n\nclose]]") == ["action:[[open", "action:close]]"])
        #expect(kinds("[[open\n  \nclose]]") == ["comment:open\n  \nclose"])
    }

    @Test func noteInsideDialogueBlock() {
        #expect(kinds("BOB\nHello.\n[[tone?]]\nWorld.") ==
                ["character:BOB", "dialogue:Hello.", "comment:tone?", "dialogue:World."])
    }

    @Test func boneyardSpansLinesAndBlankLines() {
        #expect(kinds("Before.\n\n/*\nCUT SCENE\n\nINT. GONE - DAY\n*/\n\nAfter.") ==
                ["action:Before.", "boneyard:CUT SCENE\n\nINT. GONE - DAY", "action:After."])
        #expect(kinds("Keep /* drop */this.") == ["action:Keep this.", "boneyard:drop"])
    }

    @Test func unterminatedBoneyardTakesTheRest() {
        #expect(kinds("A.\n\n/* never closed\n\nB.") == ["action:A.", "boneyard:never closed\n\nB."])
    }

    @Test func unterminatedNoteIsLiteral() {
        #expect(kinds("A [[note") == ["action:A [[note"])
    }

    // MARK: Title page
    @Test func titlePageKeysOrderAndContinuations() {
        let doc = FountainParser().parse("Title: Big Fish\nCredit: written by\nAuthor: John August\nNotes:\n    Line one\n\tLine two\nDraft date: 2003\n\nINT. X - DAY")
        #expect(doc.titlePage.map(\.key) == ["Title", "Credit", "Author", "Notes", "Draft date"])
        #expect(doc.titlePage[3].values == ["Line one", "Line two"])
        #expect(doc.elements.map(\.type) == [.sceneHeading])
    }

    @Test func noTitlePageWithoutKeyOnFirstLine() {
        #expect(FountainParser().parse("FADE IN:\n\nINT. X - DAY").titlePage.isEmpty)
        #expect(FountainParser().parse("INT. HOUSE: KITCHEN - DAY\n\nAction.").titlePage.isEmpty)
        #expect(FountainParser().parse("\nTitle: Late\n\nAction.").titlePage.isEmpty)
    }

    // MARK: Chapters
    @Test func chaptersStartAtLevelTwoSections() {
        let els = fountain("A.\n\n# Big\n\nB.\n\n## Act Two\n\nC.\n\n### Scene\n\n## Act Three\n\nD.")
        #expect(els.map(\.chapterIndex) == [0, 0, 0, 1, 1, 1, 2, 2])
        #expect(els.map(\.orderIndex) == [1, 2, 3, 1, 2, 3, 1, 2])
    }

    @Test func documentStartingWithActIsChapterOne() {
        let els = fountain("## Act One\n\nA.")
        #expect(els.map(\.chapterIndex) == [1, 1])
        #expect(els.map(\.orderIndex) == [1, 2])
    }

    // MARK: Line endings
    @Test func crAndCRLFLineEndings() {
        #expect(kinds("BOB\r\nHi.\r\n\r\nAction.") == ["character:BOB", "dialogue:Hi.", "action:Action."])
        #expect(kinds("BOB\rHi.\r\rAction.") == ["character:BOB", "dialogue:Hi.", "action:Action."])
    }

    @Test func emphasisMarkupIsKeptInText() throws {
        let e = try #require(fountain("He was *very* **bold** and _under_ \\*not\\*.").first)
        #expect(e.text == "He was *very* **bold** and _under_ \\*not\\*.")
        #expect(e.plainText == "He was very bold and under *not*.")
    }

    @Test func unicodeCharacterNames() throws {
        let e = try #require(fountain("JOSÉ\n¿Qué?").first)
        #expect(e.type == .character)
        #expect(fountain("José\n¿Qué?").first?.type == .action)
    }
}
