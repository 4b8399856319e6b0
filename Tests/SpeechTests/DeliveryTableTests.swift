import Assets
import Screenplay
import Testing
@testable import Speech

@Suite(.timeLimit(.minutes(2))) struct DeliveryTableTests {
    @Test(arguments: [
        ("(whispering)", DeliveryStyle.whispering), ("(whispers)", .whispering), ("(Whispering.)", .whispering),
        ("(shouting)", .shouting), ("(YELLING)", .shouting), ("(quietly)", .quiet), ("(softly)", .quiet),
        ("(sotto)", .quiet), ("(sotto voce)", .quiet), ("(still quiet)", .quiet), ("(very quietly)", .quiet),
        ("(angrily)", .angry), ("(laughing)", .laughing), ("(then, laughing)", .laughing), ("(under her breath)", .quiet),
    ])
    func stylesAreFoundWhateverTheCaseFillersAndPunctuation(parenthetical: String, style: DeliveryStyle) {
        let delivery = DeliveryTable.delivery(for: parenthetical)
        #expect(delivery.style == style)
        #expect(delivery.pauseBefore == 0)
        #expect(!delivery.isNeutral)
    }

    @Test(arguments: [("(beat)", 0.8), ("(a beat)", 0.8), ("(Beat.)", 0.8), ("(pause)", 1.2), ("(long pause)", 2.5),
                      ("(a long beat)", 1.5)])
    func pausesAreFound(parenthetical: String, seconds: Double) {
        let delivery = DeliveryTable.delivery(for: parenthetical)
        #expect(delivery.pauseBefore == seconds)
        #expect(delivery.style == nil)
    }

    @Test func partsCombineAPauseAndAStyle() {
        #expect(DeliveryTable.parts(of: "A beat. Then, very QUIETLY") == ["beat", "quietly"])
        let delivery = DeliveryTable.delivery(for: "(a beat, then quietly)")
        #expect(delivery.style == .quiet && delivery.pauseBefore == 0.8)
        #expect(delivery.parenthetical == "a beat, then quietly")
        // An unknown part changes nothing; the known one still counts.
        #expect(DeliveryTable.delivery(for: "(to Dev, whispering)").style == .whispering)
    }

    @Test(arguments: ["(to Dev)", "(into phone)", "(O.S.)", "(re: the letter)", "()"])
    func unknownParentheticalsAreKeptAndChangeNothing(parenthetical: String) {
        let delivery = DeliveryTable.delivery(for: parenthetical)
        #expect(delivery.isNeutral)
        #expect(delivery.parenthetical == String(parenthetical.dropFirst().dropLast()))
        #expect(delivery.options() == .standard)
    }

    @Test func aStyleSetsRatePitchVolumeAndStyleOnTheOptions() {
        let whisper = Delivery(parenthetical: "whispering", style: .whispering).options(.init(speed: 2, pitch: 60))
        #expect(whisper.speed == 2 * DeliveryStyle.whispering.prosody.rate)
        #expect(whisper.pitch == 60 + DeliveryStyle.whispering.prosody.pitchShift)
        #expect(whisper.volume == DeliveryStyle.whispering.prosody.volume)
        #expect(whisper.style == .whispering)
        #expect(whisper.volume! < 1 && DeliveryStyle.shouting.prosody.volume > 1)
        // A pause alone changes the timing, not the audio.
        #expect(Delivery(parenthetical: "beat", pauseBefore: 0.8).options() == .standard)
    }

    @Test func contentKeysOfLinesWithoutDeliveryAreTheOnesTheyHadBefore() {
        let key = ContentKey.speech(provider: "espeak-ng", voice: "en", language: "en", options: .standard, text: "Hello.")
        let before = ContentKey(kind: "speech", inputs: [
            "provider": "espeak-ng", "voice": "en", "language": "en", "speed": "1.0", "pitch": "", "model": "", "text": "Hello.",
        ])
        #expect(key == before)
        let whispered = ContentKey.speech(provider: "espeak-ng", voice: "en", language: "en",
                                          options: Delivery(parenthetical: "whispering", style: .whispering).options(), text: "Hello.")
        #expect(whispered != key)
    }

    static let block: [Element] = [
        Element(type: .character, text: "ISOLDE", chapterIndex: 0, orderIndex: 1, name: "ISOLDE"),
        Element(type: .parenthetical, text: "(a beat, then whispering)", chapterIndex: 0, orderIndex: 2),
        Element(type: .dialogue, text: "They're here.", chapterIndex: 0, orderIndex: 3),
        Element(type: .dialogue, text: "Both of them.", chapterIndex: 0, orderIndex: 4),
        Element(type: .parenthetical, text: "(to Dev)", chapterIndex: 0, orderIndex: 5),
        Element(type: .dialogue, text: "Hide.", chapterIndex: 0, orderIndex: 6),
        Element(type: .character, text: "DEV", chapterIndex: 0, orderIndex: 7, name: "DEV"),
        Element(type: .dialogue, text: "Where?", chapterIndex: 0, orderIndex: 8),
        Element(type: .parenthetical, text: "(shouting)", chapterIndex: 0, orderIndex: 9),
        Element(type: .dialogue, text: "Run!", chapterIndex: 0, orderIndex: 10),
        Element(type: .action, text: "They run.", chapterIndex: 0, orderIndex: 11),
    ]

    @Test func aParentheticalHoldsUntilTheNextOneOrTheEndOfTheBlock() {
        let items = SpeakableRules().items(for: Self.block)
        #expect(items.map(\.text) == ["They're here.", "Both of them.", "Hide.", "Where?", "Run!", "They run."])
        #expect(items.map { $0.delivery?.style } == [.whispering, .whispering, nil, nil, .shouting, nil])
        // The pause goes before the first line after the parenthetical only.
        #expect(items.map { $0.delivery?.pauseBefore ?? 0 } == [0.8, 0, 0, 0, 0, 0])
        #expect(items[2].delivery == Delivery(parenthetical: "to Dev"))
        #expect(items[3].delivery == nil && items[5].delivery == nil)
    }

    @Test func parentheticalsAreSpokenOnlyWhenAskedAndStillDeliver() {
        var rules = SpeakableRules()
        rules.speakParentheticals = true
        let items = rules.items(for: Self.block)
        #expect(items.map(\.text).prefix(3) == ["a beat, then whispering", "They're here.", "Both of them."])
        #expect(items[0].role == .narrator && items[0].delivery == nil)
        #expect(items[1].delivery?.style == .whispering)
    }
}
