import Screenplay
import Testing
@testable import Speech

@Suite(.timeLimit(.minutes(2))) struct SpeakableRulesTests {
    static let elements: [Element] = [
        Element(type: .sectionHeading, text: "Act One", chapterIndex: 1, orderIndex: 1, level: 2),
        Element(type: .sceneHeading, text: "INT. KITCHEN - NIGHT", chapterIndex: 1, orderIndex: 2, sceneNumber: "1"),
        Element(type: .action, text: "ISOLDE stirs a *very* large pot.", chapterIndex: 1, orderIndex: 3),
        Element(type: .character, text: "ISOLDE (V.O.)", chapterIndex: 1, orderIndex: 4, name: "ISOLDE", extension: "V.O."),
        Element(type: .parenthetical, text: "(quietly)", chapterIndex: 1, orderIndex: 5),
        Element(type: .dialogue, text: "I **really** mean it.", chapterIndex: 1, orderIndex: 6),
        Element(type: .comment, text: "fix this line", chapterIndex: 1, orderIndex: 7),
        Element(type: .boneyard, text: "old scene", chapterIndex: 1, orderIndex: 8),
        Element(type: .synopsis, text: "Isolde cooks.", chapterIndex: 1, orderIndex: 9),
        Element(type: .pageBreak, text: "", chapterIndex: 1, orderIndex: 10),
        Element(type: .transition, text: "CUT TO:", chapterIndex: 1, orderIndex: 11),
        Element(type: .character, text: "tristan", chapterIndex: 1, orderIndex: 12, name: "tristan"),
        Element(type: .dialogue, text: "_Fine._", chapterIndex: 1, orderIndex: 13),
        Element(type: .action, text: "He leaves.", chapterIndex: 1, orderIndex: 14),
    ]

    @Test func defaultRules() {
        let items = SpeakableRules().items(for: Self.elements)
        #expect(items.map(\.text) == [
            "Act One", "Interior. Kitchen. Night.", "ISOLDE stirs a very large pot.", "I really mean it.",
            "Cut to.", "Fine.", "He leaves.",
        ])
        #expect(items.map(\.role) == [.narrator, .narrator, .narrator, .character("ISOLDE"), .narrator, .character("TRISTAN"), .narrator])
        let dialogue = items[3]
        #expect(dialogue.chapterIndex == 1 && dialogue.orderIndex == 6 && dialogue.elementType == .dialogue)
        #expect(!items.contains { $0.text.contains("*") || $0.text.contains("_") })
    }

    @Test func silentElementsCanBeEnabledAndCharactersAnnounced() {
        var rules = SpeakableRules()
        rules.speakParentheticals = true
        rules.speakComments = true
        rules.speakBoneyard = true
        rules.speakSynopses = true
        rules.speakPageBreaks = true
        rules.announceCharacters = true
        let texts = rules.items(for: Self.elements).map(\.text)
        #expect(texts.contains("ISOLDE says"))
        #expect(texts.contains("quietly"))
        #expect(texts.contains("fix this line"))
        #expect(texts.contains("old scene"))
        #expect(texts.contains("Isolde cooks."))
        #expect(texts.contains("Page break."))
        // Announcement comes right before the line, spoken by the narrator.
        let items = rules.items(for: Self.elements)
        let i = items.firstIndex { $0.text == "ISOLDE says" }!
        #expect(items[i].role == .narrator)
        #expect(items[i + 2].role == .character("ISOLDE"))
    }

    @Test(arguments: [
        ("INT. KITCHEN - NIGHT", "Interior. Kitchen. Night."),
        ("EXT. MARY'S HOUSE - DAY", "Exterior. Mary's House. Day."),
        ("INT./EXT. CAR - MOVING - CONTINUOUS", "Interior, exterior. Car. Moving. Continuous."),
        ("I/E TRAIN", "Interior, exterior. Train."),
        ("EST. CITY – DAWN", "Establishing. City. Dawn."),
        ("INTERIOR DESIGN STUDIO", "Interior Design Studio."),
        (".the bunker", "the bunker."),
        ("INT. LAB - DAY #12A#", "Interior. Lab. Day."),
    ])
    func sceneHeadingsReadNaturally(heading: String, spoken: String) {
        #expect(SpeakableRules.naturalSceneHeading(heading) == spoken)
    }

    @Test func transitions() {
        #expect(SpeakableRules.naturalTransition("CUT TO:") == "Cut to.")
        #expect(SpeakableRules.naturalTransition("> FADE OUT.") == "Fade out.")
        #expect(SpeakableRules.naturalTransition("Smash cut to:") == "Smash cut to.")
    }

    @Test func dialogueWithoutCueFallsBackToNarrator() {
        let items = SpeakableRules().items(for: [Element(type: .dialogue, text: "Orphan line.")])
        #expect(items.map(\.role) == [.narrator])
    }
}
