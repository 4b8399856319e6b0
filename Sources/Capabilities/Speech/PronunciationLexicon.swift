import Foundation
import Yams

/// How a production's unusual words are said: word → respelling, or word → phonemes.
///
/// A lexicon file is YAML or JSON (JSON when it starts with `{`), one key per word:
/// ```yaml
/// Isolde: ee-ZOL-duh                 # a respelling, said by every provider
/// Siobhan:
///   respelling: shiv-AWN             # for providers without phoneme input
///   phonemes: "S@v'A:n"              # espeak-ng mnemonics, what `espeak-ng -x` prints
///   alphabet: espeak                 # espeak (the default) or ipa
/// ```
/// Matching is whole-word and case-insensitive (see ``spokenText(_:alphabet:)``); the words of a
/// line the lexicon does not name are left exactly as they are.
public struct PronunciationLexicon: Codable, Sendable, Hashable {
    /// How one word is said.
    public struct Entry: Codable, Sendable, Hashable {
        /// The word spelled as it sounds ("ee-ZOL-duh"), for providers without phoneme input.
        public var respelling: String?
        /// The word in ``alphabet``.
        public var phonemes: String?
        /// The notation of ``phonemes`` (nil: ``PhonemeAlphabet/espeak``).
        public var alphabet: PhonemeAlphabet?

        public init(respelling: String? = nil, phonemes: String? = nil, alphabet: PhonemeAlphabet? = nil) {
            self.respelling = respelling
            self.phonemes = phonemes
            self.alphabet = alphabet
        }
    }

    /// Entries by word, as the file spells the word.
    public let entries: [String: Entry]
    /// Entries by lower-cased word.
    private let index: [String: Entry]

    /// Most entries one lexicon may have.
    public static let maximumEntries = 10_000

    /// - Throws: ``SpeechError/invalidLexicon(reason:)`` naming the first bad entry.
    public init(entries: [String: Entry]) throws(SpeechError) {
        guard entries.count <= Self.maximumEntries else {
            throw .invalidLexicon(reason: "\(entries.count) entries, at most \(Self.maximumEntries)")
        }
        var index: [String: Entry] = [:]
        var spelled: [String: String] = [:]
        for (word, entry) in entries.sorted(by: { $0.key < $1.key }) {
            try Self.validate(word: word, entry: entry)
            let key = Self.folded(word)
            if let other = spelled[key] {
                throw .invalidLexicon(reason: "'\(other)' and '\(word)' differ only in case: keep one")
            }
            spelled[key] = word
            index[key] = entry
        }
        self.entries = entries
        self.index = index
    }

    /// Parses a lexicon file's text: JSON when it starts with `{`, YAML otherwise.
    /// - Throws: ``SpeechError/invalidLexicon(reason:)``.
    public static func parse(_ text: String) throws(SpeechError) -> PronunciationLexicon {
        let raw: [String: RawEntry]
        do {
            if text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") {
                raw = try JSONDecoder().decode([String: RawEntry].self, from: Data(text.utf8))
            } else {
                raw = try YAMLDecoder().decode([String: RawEntry].self, from: text)
            }
        } catch let error as SpeechError {
            throw error
        } catch {
            throw .invalidLexicon(reason: "not a YAML or JSON mapping of word: respelling or word: {respelling, phonemes, alphabet}")
        }
        var entries: [String: Entry] = [:]
        for (word, value) in raw { entries[word] = try value.entry(for: word) }
        return try PronunciationLexicon(entries: entries)
    }

    /// Reads and parses the lexicon file at `url`.
    /// - Throws: ``SpeechError/invalidLexicon(reason:)``, also when the file cannot be read.
    public static func load(from url: URL) throws(SpeechError) -> PronunciationLexicon {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw .invalidLexicon(reason: "cannot read \(url.path) as UTF-8 text")
        }
        return try parse(text)
    }

    // MARK: applying it

    /// `text` with every word the lexicon names replaced for a provider that reads `alphabet`
    /// (nil: none): phonemes in that alphabet as `[[...]]` when the entry has them (a possessive
    /// gets its `s`/`z`/`Iz` phoneme), else the respelling; a possessive keeps its `'s`.
    ///
    /// Words are maximal runs of letters and digits with apostrophes inside them, compared without
    /// case: "Isolde" matches "ISOLDE," and "Isolde's", never "Isoldes" or "Isoldesque". When a
    /// line gets phonemes, a `[[` already in it is split (`[ [`), so espeak-ng reads it as text.
    public func spokenText(_ text: String, alphabet: PhonemeAlphabet?) -> String {
        guard !index.isEmpty else { return text }
        let (out, phonemesUsed) = replacingWords(in: text, alphabet: alphabet)
        guard phonemesUsed, text.contains("[[") else { return out }
        var own = text
        while own.contains("[[") { own = own.replacingOccurrences(of: "[[", with: "[ [") }
        return replacingWords(in: own, alphabet: alphabet).text
    }

    /// One pass over the words of `text`; also says whether any word became phonemes.
    private func replacingWords(in text: String, alphabet: PhonemeAlphabet?) -> (text: String, phonemesUsed: Bool) {
        let characters = Array(text)
        var out = ""
        var phonemesUsed = false
        var i = 0
        while i < characters.count {
            guard Self.isWordCharacter(characters[i]) else {
                out.append(characters[i])
                i += 1
                continue
            }
            var j = i + 1
            while j < characters.count, Self.isWordCharacter(characters[j])
                || (Self.isApostrophe(characters[j]) && j + 1 < characters.count && Self.isWordCharacter(characters[j + 1])) {
                j += 1
            }
            let word = String(characters[i..<j])
            if let (replacement, usedPhonemes) = replacement(for: word, alphabet: alphabet) {
                out += replacement
                phonemesUsed = phonemesUsed || usedPhonemes
            } else {
                out += word
            }
            i = j
        }
        return (out, phonemesUsed)
    }

    /// The replacement of one word and whether it is phonemes, or nil when the lexicon does not name it.
    private func replacement(for word: String, alphabet: PhonemeAlphabet?) -> (String, Bool)? {
        let key = Self.folded(word)
        var entry = index[key]
        var possessive = ""
        if entry == nil, key.hasSuffix("'s"), let stem = index[String(key.dropLast(2))] {
            entry = stem
            possessive = String(word.suffix(2))
        }
        guard let entry else { return nil }
        if let phonemes = entry.phonemes, let alphabet, (entry.alphabet ?? .espeak) == alphabet, alphabet == .espeak {
            let suffix = possessive.isEmpty ? "" : Self.espeakPossessive(after: phonemes)
            return ("[[" + phonemes + suffix + "]]", true)
        }
        guard let respelling = entry.respelling else { return nil }
        return (respelling + possessive, false)
    }

    /// The possessive ending in espeak-ng mnemonics: `Iz` after a sibilant, `s` after a voiceless
    /// consonant, `z` otherwise (as in "Rose's", "Kate's", "Isolde's").
    static func espeakPossessive(after phonemes: String) -> String {
        let sounds = phonemes.filter { !"'_,:;%=#".contains($0) }
        if ["tS", "dZ", "s", "z", "S", "Z"].contains(where: { sounds.hasSuffix($0) }) { return "Iz" }
        if ["p", "t", "k", "f", "T"].contains(where: { sounds.hasSuffix($0) }) { return "s" }
        return "z"
    }

    static func isWordCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber }
    static func isApostrophe(_ c: Character) -> Bool { c == "'" || c == "’" }
    /// Lower case with typographic apostrophes made straight.
    static func folded(_ word: String) -> String { word.lowercased().replacingOccurrences(of: "’", with: "'") }

    // MARK: checking entries

    static func validate(word: String, entry: Entry) throws(SpeechError) {
        let trimmed = word.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalidLexicon(reason: "an entry has an empty word") }
        let characters = Array(word)
        let isOneWord = isWordCharacter(characters[0]) && isWordCharacter(characters[characters.count - 1])
            && characters.allSatisfy { isWordCharacter($0) || isApostrophe($0) }
        guard isOneWord, word.count <= 100 else {
            throw .invalidLexicon(reason: "'\(word)': a lexicon word is one word of letters, digits and inner apostrophes")
        }
        func fail(_ reason: String) -> SpeechError { .invalidLexicon(reason: "'\(word)': \(reason)") }
        if let respelling = entry.respelling {
            guard !respelling.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw fail("empty respelling") }
            guard !respelling.contains("[[") && !respelling.contains("]]") else { throw fail("a respelling cannot contain [[ or ]]") }
        }
        if let phonemes = entry.phonemes {
            guard !phonemes.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw fail("empty phonemes") }
            guard !phonemes.contains("[") && !phonemes.contains("]") && !phonemes.contains(where: \.isNewline) else {
                throw fail("phonemes cannot contain [, ] or line breaks")
            }
            if entry.alphabet == .ipa && entry.respelling == nil {
                throw fail("IPA phonemes need a respelling too: no built-in provider reads IPA")
            }
        } else {
            guard entry.respelling != nil else { throw fail("give a respelling or phonemes") }
            guard entry.alphabet == nil else { throw fail("an alphabet without phonemes") }
        }
    }

    /// One value of a lexicon file: a respelling, or a mapping with respelling, phonemes and alphabet.
    private enum RawEntry: Decodable {
        case respelling(String)
        case fields([String: String])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .respelling(text)
            } else {
                self = .fields(try container.decode([String: String].self))
            }
        }

        func entry(for word: String) throws(SpeechError) -> Entry {
            switch self {
            case .respelling(let text):
                return Entry(respelling: text)
            case .fields(let fields):
                if let unknown = fields.keys.sorted().first(where: { !["respelling", "phonemes", "alphabet"].contains($0) }) {
                    throw .invalidLexicon(reason: "'\(word)': unknown key '\(unknown)' (respelling, phonemes, alphabet)")
                }
                var alphabet: PhonemeAlphabet?
                if let name = fields["alphabet"] {
                    guard let known = PhonemeAlphabet(rawValue: name.lowercased()) else {
                        throw .invalidLexicon(reason: "'\(word)': unknown alphabet '\(name)' (espeak, ipa)")
                    }
                    alphabet = known
                }
                return Entry(respelling: fields["respelling"], phonemes: fields["phonemes"], alphabet: alphabet)
            }
        }
    }

    // MARK: Codable (stored with the production: a mapping of word to entry)

    public init(from decoder: any Decoder) throws {
        let entries = try decoder.singleValueContainer().decode([String: Entry].self)
        do { try self.init(entries: entries) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(entries)
    }
}
