import Foundation
import Screenplay
import Testing
@testable import Analysis

/// The analysis's scene split and search ranking, no server.
@Suite(.timeLimit(.minutes(1))) struct AnalysisUnitTests {
    @Test func aScriptSplitsIntoScenesWithSpeakersNamed() {
        let document = FountainParser().parse("""
            Title: Test

            FADE IN:

            INT. KITCHEN - NIGHT

            The kettle screams.

            ANNA
            (quietly)
            I told you not to wait up.

            [[a note to self]]

            EXT. STREET - DAY

            Rain.
            """)
        let scenes = AnalysisScene.scenes(of: document)
        #expect(scenes.map(\.heading) == ["(opening)", "INT. KITCHEN - NIGHT", "EXT. STREET - DAY"])
        #expect(scenes.map(\.index) == [0, 1, 2])
        #expect(scenes[1].body == "The kettle screams.\n(quietly)\nANNA: I told you not to wait up.")
        #expect(!scenes[1].body.contains("note to self"), "comments are not part of a scene")
        #expect(scenes[2].body == "Rain.")
    }

    @Test func charactersAreTheSpeakersWithTheirLinesMostFirst() {
        let document = FountainParser().parse("""
            INT. HOUSE - DAY

            ANNA
            One.

            BOB
            (softly)
            Two.

            ANNA (V.O.)
            Three.

            CARL walks in.
            """)
        let characters = AnalysisCharacter.characters(of: document)
        #expect(characters.map(\.name) == ["ANNA", "BOB"])
        #expect(characters[0].lineCount == 2)
        #expect(characters[0].lines == "One.\nThree.")
        #expect(characters[1].lines == "Two.")
        #expect(AnalysisPrompts.character(characters[1]).messages[0].content.hasPrefix("Describe the character BOB"))
    }

    @Test func anEmptyOpeningIsNoScene() {
        let scenes = AnalysisScene.scenes(of: FountainParser().parse("INT. HOUSE - DAY\n\nBOB\nHi.\n"))
        #expect(scenes.count == 1)
        #expect(scenes[0].body == "BOB: Hi.")
    }

    @Test func cosineRanksTheClosestFirst() {
        #expect(SceneSearch.cosine([1, 0], [1, 0]) == 1)
        #expect(SceneSearch.cosine([1, 0], [0, 1]) == 0)
        #expect(SceneSearch.cosine([1, 0], [-1, 0]) == -1)
        #expect(SceneSearch.cosine([0, 0], [1, 0]) == 0)
        #expect(SceneSearch.cosine([1, 0], [1, 0, 0]) == 0)
        let ranked = SceneSearch.rank([1, 1, 0], [(item: "a", vector: [0, 0, 1]), (item: "b", vector: [1, 1, 0]), (item: "c", vector: [1, 0, 0])], limit: 2)
        #expect(ranked.map(\.item) == ["b", "c"])
        #expect(abs(ranked[1].score - 0.5.squareRoot()) < 1e-9)
    }

    @Test func theSameSceneGivesTheSameRequest() {
        let scene = AnalysisScene(index: 3, heading: "INT. A", body: "x")
        #expect(AnalysisPrompts.sceneSummary(scene) == AnalysisPrompts.sceneSummary(AnalysisScene(index: 7, heading: "INT. A", body: "x")),
                "the index is not part of the request, so a moved scene is reused")
        #expect(AnalysisPrompts.logline(summaries: ["a", "b"]).messages[0].content.contains("Scene 2: b"))
    }
}
