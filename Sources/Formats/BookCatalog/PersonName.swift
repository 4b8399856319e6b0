import Foundation

/// Names written "Last, First" by the exports.
public enum PersonName {
    /// "Le Guin, Ursula K." → "Ursula K. Le Guin"; a name with no comma, or with a suffix after the
    /// comma ("King, Jr."), stays as written.
    public static func turned(_ name: String) -> String {
        let trimmed = name.trimmingSpaces
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return trimmed }
        let suffixes: Set<String> = ["jr", "jr.", "sr", "sr.", "ii", "iii", "iv"]
        guard !suffixes.contains(parts[1].lowercased()) else { return trimmed }
        return parts[1] + " " + parts[0]
    }

    /// The names in an author field as read (a spine, a cover, a row): split at `;`, `&`, `/`,
    /// `+`, "and" and "with"; a comma splits two full names ("Neil Gaiman, Terry Pratchett") but
    /// turns one written "Last, First" round ("Tolkien, J.R.R." → "J.R.R. Tolkien"). A leading
    /// "by" is dropped. Empty when nothing is left.
    public static func names(in text: String) -> [String] {
        var unified = text
        for separator in [" and ", " with ", "&", "/", "+", "|"] {
            unified = unified.replacingOccurrences(of: separator, with: ";", options: [.caseInsensitive])
        }
        var names: [String] = []
        for part in unified.split(separator: ";").map({ String($0).trimmingSpaces }) where !part.isEmpty {
            let pieces = part.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
            if pieces.count == 2, !(isFullName(pieces[0]) && isFullName(pieces[1])) {
                names.append(turned(part))
            } else {
                names += pieces
            }
        }
        return names.map(withoutBy).filter { !MatchKey.words(of: $0).isEmpty }
    }

    /// Two words or more of two letters or more: a name of its own, not the "First" of "Last, First".
    private static func isFullName(_ text: String) -> Bool {
        text.split { !$0.isLetter }.filter { $0.count >= 2 }.count >= 2
    }

    private static func withoutBy(_ name: String) -> String {
        name.lowercased().hasPrefix("by ") ? String(name.dropFirst(3)).trimmingSpaces : name
    }
}
