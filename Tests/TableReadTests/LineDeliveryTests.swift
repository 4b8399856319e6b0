import SpeechJobs
import Assets
import Foundation
import Screenplay
import Speech
import Testing
@testable import TableRead

/// What the enrich stage stores for a line given a lexicon and parentheticals, and where the
/// timeline puts a line after a "(beat)": pure, without a server.
@Suite("table-read lines: lexicon and delivery", .timeLimit(.minutes(1)))
struct LineDeliveryTests {
    static let document = ScreenplayDocument(format: .fountain, elements: [
        Element(type: .sceneHeading, text: "INT. HALL - NIGHT", chapterIndex: 0, orderIndex: 1),
        Element(type: .action, text: "Isolde waits by the door.", chapterIndex: 0, orderIndex: 2),
        Element(type: .character, text: "DEV", chapterIndex: 0, orderIndex: 3, name: "DEV"),
        Element(type: .dialogue, text: "Is that Isolde's coat?", chapterIndex: 0, orderIndex: 4),
        Element(type: .parenthetical, text: "(whispering)", chapterIndex: 0, orderIndex: 5),
        Element(type: .dialogue, text: "Don't move.", chapterIndex: 0, orderIndex: 6),
        Element(type: .parenthetical, text: "(to Isolde)", chapterIndex: 0, orderIndex: 7),
        Element(type: .dialogue, text: "Stay.", chapterIndex: 0, orderIndex: 8),
        Element(type: .parenthetical, text: "(beat)", chapterIndex: 0, orderIndex: 9),
        Element(type: .dialogue, text: "Please.", chapterIndex: 0, orderIndex: 10),
    ])
    static let cast = Cast(provider: "espeak-ng", language: "en", narrator: "en-us", characters: ["DEV": "en-us+Alicia"])

    func lines(lexicon: PronunciationLexicon? = nil, alphabets: [String: PhonemeAlphabet] = [:]) -> [TableReadLine] {
        EnrichJob.lines(document: Self.document, analysis: ScriptAnalysis(document: Self.document), cast: Self.cast,
                        announceCharacters: false, lexicon: lexicon, phonemeAlphabets: alphabets)
    }

    @Test func aLexiconChangesTheKeysOfExactlyTheLinesItChanges() throws {
        let plain = lines()
        let lexicon = try PronunciationLexicon(entries: ["Isolde": .init(respelling: "ee-ZOL-duh", phonemes: "i:z'0ld@")])
        let respelled = lines(lexicon: lexicon)
        let phonemes = lines(lexicon: lexicon, alphabets: ["espeak-ng": .espeak])
        let changed = [false, true, true, false, false, false]
        #expect(zip(plain, respelled).map { $0.contentKey != $1.contentKey } == changed)
        #expect(zip(plain, phonemes).map { $0.contentKey != $1.contentKey } == changed)
        #expect(zip(respelled, phonemes).map { $0.contentKey != $1.contentKey } == changed)
        // The script's spelling stays the line's text (subtitles, report); the provider gets the other.
        #expect(respelled.map(\.text) == plain.map(\.text))
        #expect(respelled[2].spokenText == "Is that ee-ZOL-duh's coat?")
        #expect(phonemes[2].providerText == "Is that [[i:z'0ld@z]] coat?")
        #expect(respelled[3].spokenText == nil && respelled[3].providerText == "Don't move.")
        // The key hashes exactly what the provider is given.
        let item = SpeechJob.Item(text: phonemes[2].providerText, voice: phonemes[2].voice, provider: "espeak-ng", language: "en")
        #expect(item.contentKey.description == phonemes[2].contentKey)
    }

    @Test func aDeliveryChangesTheKeyOnlyWhenItChangesTheAudio() {
        let lines = lines()
        #expect(lines.map(\.text) == ["Interior. Hall. Night.", "Isolde waits by the door.", "Is that Isolde's coat?",
                                      "Don't move.", "Stay.", "Please."])
        #expect(lines.map { $0.delivery?.parenthetical } == [nil, nil, nil, "whispering", "to Isolde", "beat"])
        let standard = lines.map { ContentKey.speech(provider: $0.provider, voice: $0.voice, language: $0.language,
                                                     options: .standard, text: $0.text).description }
        // Only the whispered line sounds different; "(to Isolde)" is evidence, "(beat)" is timing.
        #expect(zip(lines, standard).map { $0.contentKey != $1 } == [false, false, false, true, false, false])
        #expect(lines[3].synthesisOptions.volume == DeliveryStyle.whispering.prosody.volume)
        #expect(lines[5].delivery?.pauseBefore == 0.8)
    }

    @Test func aBeatPutsSilenceBeforeItsLine() {
        let pauses = TableReadTimeline.Pauses(chapter: 4, scene: 3, speakerChange: 2, sameSpeaker: 1, edge: 0.5)
        let timeline = TableReadTimeline(lines: [
            .init(chapterIndex: 0, orderIndex: 1, sceneIndex: 1, speaker: "DEV", text: "Stay.", duration: 1),
            .init(chapterIndex: 0, orderIndex: 2, sceneIndex: 1, speaker: "DEV", text: "Please.", duration: 1, deliveryPause: 0.8),
        ], pauses: pauses)
        #expect(timeline.cues.map(\.pauseBefore) == [0.5, 1.8])
        #expect(timeline.cues.map(\.start) == [0.5, 3.3])
        #expect(timeline.duration == 4.3 + 0.5)
    }
}
