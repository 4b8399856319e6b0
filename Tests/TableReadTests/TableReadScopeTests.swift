import Foundation
import RepartoRuntime
import Testing
@testable import TableRead

/// Scoped reads (`--scenes`, `--characters`) and per-line status, without a server.
@Suite("table-read scope and line status", .timeLimit(.minutes(1)))
struct TableReadScopeTests {
    /// (scene, speaker) of each line, in script order: the selection is checked on these.
    struct Line: Equatable, CustomStringConvertible {
        var scene: Int?
        var speaker: String
        var n: Int
        var description: String { "\(n):\(scene.map(String.init) ?? "-")/\(speaker)" }
    }

    static let script: [Line] = [
        (nil, "narrator"),                                          // 0: before the first heading
        (1, "narrator"), (1, "ADA"), (1, "BOB"), (1, "BOB"), (1, "ADA"),  // 1–5
        (2, "narrator"), (2, "BOB"), (2, "CY"),                      // 6–8
        (3, "narrator"), (3, "ADA"), (3, "CY"), (3, "ADA"),          // 9–12
    ].enumerated().map { Line(scene: $1.0, speaker: $1.1, n: $0) }

    func select(_ scope: TableReadScope) -> [Int] {
        scope.select(Self.script, scene: \.scene, speaker: \.speaker).map(\.n)
    }

    @Test func scenesParseAsNumbersAndRanges() throws {
        #expect(try TableReadScope.scenes(parsing: "3-7") == [.init(first: 3, last: 7)])
        #expect(try TableReadScope.scenes(parsing: "2, 5,9-11") == [.init(first: 2, last: 2), .init(first: 5, last: 5), .init(first: 9, last: 11)])
        for bad in ["", "0", "7-3", "a", "3-", "-3", "1-2-3", "2,,3"] {
            #expect(throws: TableReadScopeError.invalidScenes(bad), "\(bad)") { try TableReadScope.scenes(parsing: bad) }
        }
    }

    @Test func charactersAreNormalizedAndNeverEmpty() throws {
        #expect(try TableReadScope.characters(parsing: "isolde, Dev ") == ["ISOLDE", "DEV"])
        #expect(throws: TableReadScopeError.invalidCharacters("ADA,")) { try TableReadScope.characters(parsing: "ADA,") }
    }

    @Test func scenesSelectTheirLinesOnly() {
        #expect(select(TableReadScope(scenes: [.init(first: 2, last: 3)])) == [6, 7, 8, 9, 10, 11, 12])
        #expect(select(TableReadScope(scenes: [.init(first: 1, last: 1), .init(first: 3, last: 3)])) == [1, 2, 3, 4, 5, 9, 10, 11, 12])
        #expect(select(TableReadScope()) == Array(0...12), "no scope: everything")
    }

    @Test func charactersSelectTheirLinesAndTheCueBeforeEach() {
        // BOB at 3, 4 (one run: one cue, ADA at 2) and 7 (cue: the narrator's heading at 6).
        #expect(select(TableReadScope(characters: ["BOB"])) == [2, 3, 4, 6, 7])
        // CY at 8 (cue BOB 7) and 11 (cue ADA 10).
        #expect(select(TableReadScope(characters: ["cy"])) == [7, 8, 10, 11])
        // ADA at 2 (cue 1), 5 (cue BOB 4), 10 (cue 9), 12 (cue CY 11).
        #expect(select(TableReadScope(characters: ["ADA"])) == [1, 2, 4, 5, 9, 10, 11, 12])
    }

    @Test func aCueIsNeverTakenFromAnotherScene() {
        let lines = [Line(scene: 1, speaker: "ADA", n: 0), Line(scene: 2, speaker: "BOB", n: 1)]
        #expect(TableReadScope(characters: ["BOB"]).select(lines, scene: \.scene, speaker: \.speaker).map(\.n) == [1])
    }

    @Test func scenesAndCharactersTogetherTakeTheCharactersWithinTheScenes() {
        #expect(select(TableReadScope(scenes: [.init(first: 2, last: 3)], characters: ["ADA"])) == [9, 10, 11, 12])
    }

    @Test func validationNamesWhatTheScriptHas() {
        let scope = TableReadScope(scenes: [.init(first: 2, last: 4)])
        #expect(throws: TableReadScopeError.noSuchScenes(.init(first: 2, last: 4), sceneCount: 3)) {
            try scope.validate(sceneCount: 3, known: [])
        }
        #expect(TableReadScopeError.noSuchScenes(.init(first: 2, last: 4), sceneCount: 3).description == "scenes 2-4: the script has 3 scenes")
        let characters = TableReadScope(characters: ["ADA", "ZED"])
        #expect(throws: TableReadScopeError.noSuchCharacters(["ZED"], known: ["ADA", "BOB"])) {
            try characters.validate(sceneCount: 3, known: ["ADA", "BOB"])
        }
        #expect(throws: Never.self) { try TableReadScope(scenes: [.init(first: 1, last: 3)], characters: ["BOB"]).validate(sceneCount: 3, known: ["BOB"]) }
    }

    @Test func aScopeSurvivesTheStoredRequest() throws {
        let request = TableReadRequest(sourcePath: "sources/x.fountain", sourceName: "x.fountain",
                                       scope: TableReadScope(scenes: [.init(first: 3, last: 7)], characters: ["isolde"]))
        let decoded = try JSONDecoder().decode(TableReadRequest.self, from: try JSONEncoder().encode(request))
        #expect(decoded.scope == request.scope)
        #expect(decoded.scope?.characters == ["ISOLDE"])
        // A request stored before scopes existed has none.
        let old = Data(#"{"sourcePath":"s","sourceName":"n","cast":{"characters":{}},"announceCharacters":false,"linesPerJob":1,"priority":"normal"}"#.utf8)
        #expect(try JSONDecoder().decode(TableReadRequest.self, from: old).scope == nil)
    }

    @Test func lineStatusFollowsTheAudioThenTheJobs() {
        typealias S = TableReadLineStatus
        func of(_ audio: Bool, _ jobs: [(JobState, String?)], ended: Bool = false) -> (S, String?) {
            S.of(hasAudio: audio, jobs: jobs.map { (state: $0.0, error: $0.1) }, productionEnded: ended)
        }
        #expect(of(true, [(.dead, "boom")]) == (.complete, nil), "audio wins: a later retry made it")
        #expect(of(false, [(.dead, "boom"), (.running, nil)]) == (.generating, nil))
        #expect(of(false, [(.failed, "429 rate limited")]) == (.queued, "429 rate limited"), "waiting for a retry")
        #expect(of(false, [(.queued, nil)]) == (.queued, nil))
        #expect(of(false, [(.dead, "voice unknown")], ended: true) == (.failed, "voice unknown"))
        #expect(of(false, [(.cancelled, "x")], ended: true) == (.failed, "cancelled"))
        #expect(of(false, []) == (.queued, nil), "the generate stage has not reached it")
        #expect(of(false, [], ended: true).0 == .failed, "the read ended without it")
    }
}
