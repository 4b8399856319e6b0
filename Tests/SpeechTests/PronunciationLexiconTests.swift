import Foundation
import Testing
@testable import Speech

@Suite(.timeLimit(.minutes(2))) struct PronunciationLexiconTests {
    static let yaml = """
        # names said wrong by every engine
        Isolde: ee-ZOL-duh
        Siobhan:
          respelling: shiv-AWN
          phonemes: "S@v'A:n"
        Niamh:
          respelling: NEEV
          phonemes: "niːv"
          alphabet: ipa
        O'Hare: oh-HAIR
        """

    func lexicon() throws -> PronunciationLexicon { try PronunciationLexicon.parse(Self.yaml) }

    @Test func yamlAndJSONGiveTheSameLexicon() throws {
        let json = """
            {"Isolde": "ee-ZOL-duh", "Siobhan": {"respelling": "shiv-AWN", "phonemes": "S@v'A:n"},
             "Niamh": {"respelling": "NEEV", "phonemes": "niːv", "alphabet": "ipa"}, "O'Hare": "oh-HAIR"}
            """
        let fromJSON = try PronunciationLexicon.parse(json)
        #expect(try lexicon() == fromJSON)
        #expect(fromJSON.entries["Siobhan"] == .init(respelling: "shiv-AWN", phonemes: "S@v'A:n"))
        #expect(fromJSON.entries["Niamh"]?.alphabet == .ipa)
    }

    @Test func wholeWordsAreMatchedWithoutCaseAndSubstringsAreLeftAlone() throws {
        let lexicon = try lexicon()
        #expect(lexicon.spokenText("ISOLDE! Isolde, isolde.", alphabet: nil) == "ee-ZOL-duh! ee-ZOL-duh, ee-ZOL-duh.")
        #expect(lexicon.spokenText("Isoldes and Isoldesque and MacIsolde", alphabet: nil) == "Isoldes and Isoldesque and MacIsolde")
        #expect(lexicon.spokenText("Isolde-Marie waits.", alphabet: nil) == "ee-ZOL-duh-Marie waits.")
        #expect(lexicon.spokenText("Nothing to change here.", alphabet: nil) == "Nothing to change here.")
        #expect(lexicon.spokenText("Ask o'hare, not O'Harem.", alphabet: nil) == "Ask oh-HAIR, not O'Harem.")
    }

    @Test func possessivesKeepTheirEnding() throws {
        let lexicon = try lexicon()
        #expect(lexicon.spokenText("Isolde's coat and ISOLDE’S hat.", alphabet: nil) == "ee-ZOL-duh's coat and ee-ZOL-duh’S hat.")
        // espeak-ng gets the possessive as a phoneme: z after a vowel, s after a voiceless consonant, Iz after a sibilant.
        #expect(lexicon.spokenText("Siobhan's", alphabet: .espeak) == "[[S@v'A:nz]]")
        #expect(PronunciationLexicon.espeakPossessive(after: "k'eIt") == "s")
        #expect(PronunciationLexicon.espeakPossessive(after: "r'oUz") == "Iz")
        #expect(PronunciationLexicon.espeakPossessive(after: "Iz'0ld@") == "z")
    }

    @Test func phonemesGoOnlyToProvidersThatReadTheirAlphabet() throws {
        let lexicon = try lexicon()
        let line = "Siobhan meets Niamh and Isolde."
        #expect(lexicon.spokenText(line, alphabet: .espeak) == "[[S@v'A:n]] meets NEEV and ee-ZOL-duh.")
        #expect(lexicon.spokenText(line, alphabet: nil) == "shiv-AWN meets NEEV and ee-ZOL-duh.")
        // An entry with only phonemes leaves the word as written for a provider without them.
        let only = try PronunciationLexicon(entries: ["Siobhan": .init(phonemes: "S@v'A:n")])
        #expect(only.spokenText(line, alphabet: nil) == line)
    }

    @Test func theScriptsOwnPhonemeMarksAreReadAsTextOnceALineGetsPhonemes() throws {
        let lexicon = try lexicon()
        #expect(lexicon.spokenText("[[x]] Siobhan", alphabet: .espeak) == "[ [x]] [[S@v'A:n]]")
        #expect(lexicon.spokenText("[[x]] Isolde", alphabet: .espeak) == "[[x]] ee-ZOL-duh")
    }

    @Test(arguments: [
        ("Isolde: ee-ZOL-duh\nISOLDE: eye-SOLD", "'ISOLDE' and 'Isolde' differ only in case: keep one"),
        ("\"\": nothing", "an entry has an empty word"),
        ("Jean Luc: zhon-LUKE", "'Jean Luc': a lexicon word is one word of letters, digits and inner apostrophes"),
        ("Siobhan: {phonemes: \"S@v'A:n\", alphabet: arpabet}", "'Siobhan': unknown alphabet 'arpabet' (espeak, ipa)"),
        ("Siobhan: {phoneme: \"S@v'A:n\"}", "'Siobhan': unknown key 'phoneme' (respelling, phonemes, alphabet)"),
        ("Niamh: {phonemes: niːv, alphabet: ipa}", "'Niamh': IPA phonemes need a respelling too: no built-in provider reads IPA"),
        ("Siobhan: {phonemes: \"S@]]v\"}", "'Siobhan': phonemes cannot contain [, ] or line breaks"),
        ("Siobhan: {alphabet: espeak}", "'Siobhan': give a respelling or phonemes"),
        ("Isolde: \"  \"", "'Isolde': empty respelling"),
        ("- a list", "not a YAML or JSON mapping of word: respelling or word: {respelling, phonemes, alphabet}"),
    ])
    func badLexiconsAreRefusedWithTheReason(text: String, reason: String) {
        #expect(throws: SpeechError.invalidLexicon(reason: reason)) { try PronunciationLexicon.parse(text) }
    }

    @Test func aStoredLexiconDecodesToTheSameEntries() throws {
        let lexicon = try lexicon()
        let decoded = try JSONDecoder().decode(PronunciationLexicon.self, from: JSONEncoder().encode(lexicon))
        #expect(decoded == lexicon)
        #expect(decoded.spokenText("Isolde", alphabet: nil) == "ee-ZOL-duh")
    }

    @Test func aMissingFileIsOneTypedError() {
        #expect(throws: SpeechError.invalidLexicon(reason: "cannot read /nonexistent/lexicon.yaml as UTF-8 text")) {
            try PronunciationLexicon.load(from: URL(fileURLWithPath: "/nonexistent/lexicon.yaml"))
        }
    }
}
