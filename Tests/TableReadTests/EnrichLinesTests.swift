import SpeechJobs
import Foundation
import Screenplay
import Speech
import Testing
@testable import TableRead

/// The enrich stage's lines follow a cast across providers: each line takes its role's provider,
/// voice and age adjustment, and its content key is the one the generate stage computes.
@Suite(.timeLimit(.minutes(1))) struct EnrichLinesTests {
    static let document = ScreenplayDocument(format: .fountain, elements: [
        Element(type: .sceneHeading, text: "INT. RIVER - DAY", orderIndex: 1),
        Element(type: .character, text: "EDWARD", orderIndex: 2, name: "EDWARD"),
        Element(type: .dialogue, text: "Look.", orderIndex: 3),
        Element(type: .character, text: "YOUNG EDWARD", orderIndex: 4, name: "YOUNG EDWARD"),
        Element(type: .dialogue, text: "Look.", orderIndex: 5),
        Element(type: .character, text: "SANDRA", orderIndex: 6, name: "SANDRA"),
        Element(type: .dialogue, text: "Where?", orderIndex: 7),
    ])
    static let young = SynthesisOptions(speed: 1.05, pitch: 58)
    static let cast = Cast(provider: "espeak-ng", language: "en", narrator: "en-gb", characters: [
        "EDWARD": CastRole(provider: "flite", voice: "rms"),
        "YOUNG EDWARD": CastRole(provider: "flite", voice: "rms", options: young),
        "SANDRA": CastRole(provider: "espeak-ng", voice: "en-gb+f2"),
    ])

    @Test func eachLineTakesItsRole() throws {
        let lines = EnrichJob.lines(document: Self.document, analysis: ScriptAnalysis(document: Self.document), cast: Self.cast,
                                    announceCharacters: false)
        #expect(lines.map(\.provider) == ["espeak-ng", "flite", "flite", "espeak-ng"])
        #expect(lines.map(\.voice) == ["en-gb", "rms", "rms", "en-gb+f2"])
        #expect(lines.map(\.options) == [nil, nil, Self.young, nil])
        #expect(lines[1].contentKey != lines[2].contentKey, "the same words at another age are other audio")
        for line in lines {
            let item = SpeechJob.Item(text: line.text, voice: line.voice, provider: line.provider, language: line.language,
                                        options: line.options)
            #expect(item.contentKey.description == line.contentKey)
        }
    }
}
