import Foundation

/// A person's name taken apart for comparison: folded words, the surname (with its particle:
/// "Le Guin", "van Gogh") and the given names, initials as single letters ("J.R.R.", "JRR" → j r r).
struct NameParts {
    /// The name as given ("Last, First" turned round).
    let display: String
    /// Every word, folded (``MatchKey/words(of:)``), initials one letter each, suffixes (Jr., III) dropped.
    let words: [String]
    /// The surname's forms: its last word, and with a particle before it also both joined ("guin", "leguin").
    let surnames: [String]
    /// The surname as written ("Le Guin").
    let surnameDisplay: String
    /// The words before the surname, in order.
    let given: [String]

    /// nil for a name without letters.
    init?(_ name: String) {
        let turned = PersonName.turned(Self.withoutParentheses(name))
        var originals: [String] = []
        var words: [String] = []
        for word in turned.replacingOccurrences(of: "'", with: "").replacingOccurrences(of: "\u{2019}", with: "")
            .split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init) {
            guard let folded = MatchKey.words(of: word).first, !Self.roleWords.contains(folded) else { continue }
            originals.append(word)
            words.append(folded)
        }
        while words.count > 1, let last = words.last, Self.suffixes.contains(last) {
            words.removeLast()
            originals.removeLast()
        }
        guard let last = words.last else { return nil }
        var expanded: [String] = []
        for word in words.dropLast() {
            // "JRR", "JK", "CS": initials run together (no vowel, at most three letters).
            if (2...3).contains(word.count), !word.contains(where: { "aeiouy".contains($0) }) {
                expanded += word.map(String.init)
            } else {
                expanded.append(word)
            }
        }
        var given = expanded
        var surnames = [last]
        var surnameDisplay = originals.last ?? last
        if words.count >= 2, Self.particles.contains(words[words.count - 2]) {
            surnames.append(words[words.count - 2] + last)
            surnameDisplay = originals[originals.count - 2] + " " + surnameDisplay
            given.removeLast()
        }
        display = turned.trimmingSpaces
        self.words = expanded + [last]
        self.surnames = surnames
        self.surnameDisplay = surnameDisplay
        self.given = given
    }

    /// Whether two given names may be one: equal, one an initial of the other, or (five
    /// letters or more) equal but for an OCR confusion or one letter.
    static func givenAgree(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        if a.count == 1 || b.count == 1 { return a.first == b.first }
        return min(a.count, b.count) >= 5 && OCRText.distance(OCRText.skeleton(a), OCRText.skeleton(b)) <= 1
    }

    private static func withoutParentheses(_ text: String) -> String {
        var depth = 0
        var kept = ""
        for character in text {
            if character == "(" || character == "[" { depth += 1; continue }
            if character == ")" || character == "]" { depth = max(0, depth - 1); continue }
            if depth == 0 { kept.append(character) }
        }
        return kept
    }

    private static let suffixes: Set<String> = ["jr", "sr", "ii", "iii", "iv", "phd", "md"]
    /// Words of a byline that are no part of a name ("edited by", "(Author)").
    private static let roleWords: Set<String> = ["by", "ed", "eds", "editor", "editors", "edited", "author", "trans", "translator"]
    private static let particles: Set<String> = [
        "le", "la", "de", "del", "della", "di", "da", "du", "van", "von", "der", "den", "ter", "ten", "st", "mc", "mac",
        "dos", "das", "des", "al", "el", "bin", "ibn",
    ]
}
