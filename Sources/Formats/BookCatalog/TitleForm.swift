/// A title as the matcher compares it: its key, its main part and subtitle, and its key without
/// trailing edition words ("Dune: Deluxe Edition" → key "dune deluxe edition", main "dune",
/// subtitle "Deluxe Edition", plain "dune").
struct TitleForm {
    /// The title as given, without a series suffix ("Dune (Dune, #1)" → "Dune").
    let text: String
    /// ``MatchKey/title(_:)`` of the whole title.
    let key: String
    /// The key of the part before a subtitle separator (`:`, ` - `, a dash, `(`, `[`); nil
    /// when there is none.
    let main: String?
    /// The text after that separator, as given.
    let subtitle: String?
    /// Every word of the title, a leading article kept: OCR that runs words together ("TheLeft
    /// Hand of Darkness") hides the article from ``key``.
    let spelled: String
    /// ``key`` without a trailing run of edition words ("deluxe edition", "a novel",
    /// "50th anniversary edition"): ``key`` when there is none.
    let plain: String

    init(_ title: String) {
        let text = MatchKey.withoutSeriesSuffix(title)
        self.text = text
        key = MatchKey.title(text)
        spelled = MatchKey.words(of: text).joined(separator: " ")
        let parts = Self.split(text)
        let mainKey = parts.map { MatchKey.title($0.main) } ?? ""
        if let parts, !mainKey.isEmpty, mainKey != key {
            (main, subtitle) = (mainKey, parts.subtitle)
        } else {
            (main, subtitle) = (nil, nil)
        }
        plain = Self.withoutEditionWords(key)
    }

    /// True for a title that names one book on its own: at least four words that are neither
    /// articles nor prepositions nor words many titles share ("complete", "poems", "history"),
    /// with 20 letters or more among them. "Harry Potter and the Philosopher's Stone" is one; "The
    /// Left Hand of Darkness" (three such words) and "Collected Poems" are not.
    var isDistinctive: Bool {
        let words = Self.significantWords(plain)
        return words.count >= 4 && words.reduce(0) { $0 + $1.count } >= 20
    }

    /// Words of `key` that are neither stop words nor generic title words.
    static func significantWords(_ key: String) -> [Substring] {
        key.split(separator: " ").filter { !stopWords.contains(String($0)) && !genericWords.contains(String($0)) }
    }

    /// Whether the words of `text` are all edition words (with at least one that says so:
    /// "edition", "novel", "illustrated", …), as in "Deluxe Edition" or "A Novel".
    static func isEditionWords(_ text: String) -> Bool {
        let words = MatchKey.words(of: text)
        return !words.isEmpty && words.allSatisfy(isEditionWord) && words.contains { strongEditionWords.contains($0) }
    }

    /// The main part and the subtitle at the first subtitle separator, or nil.
    static func split(_ text: String) -> (main: String, subtitle: String)? {
        let separators = [":", " - ", " – ", " — ", "—", " (", "(", " [", "["]
        var best: (range: Range<String.Index>, separator: String)?
        for separator in separators {
            guard let range = text.range(of: separator), range.lowerBound > text.startIndex else { continue }
            if best == nil || range.lowerBound < best!.range.lowerBound { best = (range, separator) }
        }
        guard let best else { return nil }
        let main = String(text[..<best.range.lowerBound]).trimmingSpaces
        var subtitle = String(text[best.range.upperBound...]).trimmingSpaces
        if best.separator.hasSuffix("("), subtitle.hasSuffix(")") { subtitle.removeLast() }
        if best.separator.hasSuffix("["), subtitle.hasSuffix("]") { subtitle.removeLast() }
        subtitle = subtitle.trimmingSpaces
        guard !main.isEmpty, !subtitle.isEmpty else { return nil }
        return (main, subtitle)
    }

    /// `key` without its trailing run of edition words, when the run holds a word that says
    /// "edition" and leaves a word before it.
    static func withoutEditionWords(_ key: String) -> String {
        let words = key.split(separator: " ").map(String.init)
        var start = words.count
        while start > 0, isEditionWord(words[start - 1]) { start -= 1 }
        guard start > 0, start < words.count, words[start...].contains(where: { strongEditionWords.contains($0) }) else { return key }
        return words[..<start].joined(separator: " ")
    }

    private static func isEditionWord(_ word: String) -> Bool {
        if strongEditionWords.contains(word) || weakEditionWords.contains(word) { return true }
        // "50th", "2nd"
        for suffix in ["st", "nd", "rd", "th"] where word.hasSuffix(suffix) && word.count > suffix.count {
            if word.dropLast(suffix.count).allSatisfy(\.isNumber) { return true }
        }
        return false
    }

    /// Words that make a run of words an edition's description.
    private static let strongEditionWords: Set<String> = [
        "edition", "editions", "deluxe", "anniversary", "illustrated", "annotated", "unabridged", "abridged", "novel",
        "classics", "paperback", "hardcover", "hardback", "reissue", "reprint", "collectors", "uncut", "tie",
    ]
    /// Words that may stand in such a run ("A Novel", "Penguin Modern Classics", "Movie Tie-In Edition").
    private static let weakEditionWords: Set<String> = [
        "a", "an", "the", "ed", "special", "revised", "expanded", "movie", "film", "tv", "in", "mass", "market", "penguin",
        "vintage", "modern", "library", "signet", "bantam", "oxford", "worlds", "classic", "first", "new", "international",
    ]

    private static let stopWords: Set<String> = [
        "the", "a", "an", "of", "and", "in", "on", "to", "for", "with", "at", "by", "from", "or", "as", "is", "de", "la",
        "le", "el", "der", "die", "das", "und", "los", "las", "les", "des", "du", "en", "y", "et", "il", "lo", "di", "da",
        "von", "van", "my", "your", "our", "his", "her", "its", "their",
    ]
    private static let genericWords: Set<String> = [
        "book", "books", "novel", "novels", "story", "stories", "tale", "tales", "poems", "poetry", "collected", "selected",
        "complete", "works", "edition", "volume", "vol", "part", "guide", "introduction", "history", "handbook", "new",
        "best", "great", "little", "life", "world", "love", "essays", "letters", "short", "anthology", "collection",
        "series", "cookbook", "classic", "classics", "modern", "art", "science", "man", "woman", "day", "night", "time",
    ]
}
