import Foundation

/// The keys that decide whether two rows name the same book when they share no ISBN-13.
///
/// Both keys fold case and diacritics and turn punctuation into spaces. A title loses a series
/// suffix ("Dune (Dune, #1)" → "dune") and a leading article, also one written after a comma
/// ("Hobbit, The"). An author written "Last, First" is turned round, and runs of initials are
/// joined, so "J.R.R. Tolkien", "J. R. R. Tolkien" and "Tolkien, J.R.R." are one key.
public enum MatchKey {
    /// The title's key.
    public static func title(_ title: String) -> String {
        var text = withoutSeriesSuffix(title)
        // "Hobbit, The" → "The Hobbit"
        for article in ["the", "a", "an"] {
            let suffix = ", " + article
            if text.lowercased().hasSuffix(suffix) {
                text = String(text.dropLast(suffix.count))
            }
        }
        var words = words(of: text)
        if words.count > 1, ["the", "a", "an"].contains(words[0]) { words.removeFirst() }
        return words.joined(separator: " ")
    }

    /// The author's key ("Last, First" turned round).
    public static func author(_ author: String) -> String {
        var text = author.trimmingSpaces
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        if parts.count == 2 {
            let last = parts[0].trimmingCharacters(in: .whitespaces)
            let first = parts[1].trimmingCharacters(in: .whitespaces)
            let suffixes: Set<String> = ["jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "phd", "md"]
            if !first.isEmpty, !last.isEmpty, !suffixes.contains(first.lowercased()) {
                text = first + " " + last
            }
        }
        var joined: [String] = []
        var initials = ""
        for word in words(of: text) {
            if word.count == 1 { initials += word; continue }
            if !initials.isEmpty { joined.append(initials); initials = "" }
            joined.append(word)
        }
        if !initials.isEmpty { joined.append(initials) }
        return joined.joined(separator: " ")
    }

    /// The title and first author's keys together; `nil` when the title's key is empty.
    public static func book(title: String, author: String?) -> String? {
        let titleKey = self.title(title)
        guard !titleKey.isEmpty else { return nil }
        return titleKey + "|" + (author.map(self.author) ?? "")
    }

    /// The title keys a title as read may be found under in the catalog: its key, the key of
    /// its part before a subtitle ("Dune: Deluxe Edition" → "dune"), and its key without
    /// trailing edition words ("Dune Deluxe Edition" → "dune"); distinct, the whole key first.
    public static func titleKeys(_ title: String) -> [String] {
        let form = TitleForm(title)
        var keys: [String] = []
        for key in [form.key, form.main, form.plain].compactMap({ $0 }) where !key.isEmpty && !keys.contains(key) {
            keys.append(key)
        }
        return keys
    }

    /// The title without a trailing series suffix in parentheses that holds a `#` number:
    /// "The Fifth Season (The Broken Earth, #1)" → "The Fifth Season".
    public static func withoutSeriesSuffix(_ title: String) -> String {
        let trimmed = title.trimmingSpaces
        guard trimmed.hasSuffix(")"), let open = trimmed.lastIndex(of: "(") else { return trimmed }
        let inside = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
        guard let hash = inside.lastIndex(of: "#") else { return trimmed }
        let number = inside[inside.index(after: hash)...].trimmingCharacters(in: .whitespaces)
        guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" }) else { return trimmed }
        let rest = String(trimmed[..<open]).trimmingSpaces
        return rest.isEmpty ? trimmed : rest
    }

    /// Lower-cased, diacritic-folded words: every run of letters and digits.
    static func words(of text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive],
                                  locale: Locale(identifier: "en_US_POSIX"))
            .replacingOccurrences(of: "'", with: "")
            .replacingOccurrences(of: "\u{2019}", with: "")
            .replacingOccurrences(of: "&", with: " and ")
        return folded.lowercased()
            .split { !($0.isLetter || $0.isNumber) }
            .map(String.init)
    }
}
