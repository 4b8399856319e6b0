/// A parsed character cue: `NAME (EXTENSION)`, optionally `^` for dual dialogue.
public struct CharacterCue: Sendable, Hashable {
    /// The cue as written, without `@` and `^` markers.
    public var text: String
    /// The name without extension.
    public var name: String
    /// The text inside the trailing parentheses; for several groups `(V.O.) (CONT'D)`,
    /// everything between the first `(` and the last `)`: `V.O.) (CONT'D`.
    public var `extension`: String?
    /// True when the cue ended with `^`.
    public var dual: Bool

    /// Splits a cue. Leading `@` and trailing `^` are removed.
    /// Returns nil when the name part is empty.
    public init?(parsing raw: Substring) {
        self.init(bytes: ArraySlice(raw.utf8))
    }

    /// Splits a cue given as UTF-8 bytes (see ``init(parsing:)``).
    init?(bytes raw: ArraySlice<UInt8>) {
        var s = raw.trimmed()
        if s.first == UInt8(ascii: "@") { s = s.dropFirst().trimmed() }
        var dual = false
        if s.last == UInt8(ascii: "^") { dual = true; s = s.dropLast().trimmed() }
        var name = s
        var ext: String?
        if s.last == UInt8(ascii: ")"), let open = s.firstIndex(of: UInt8(ascii: "(")) {
            name = s[s.startIndex..<open].trimmed()
            ext = s[(open + 1)..<(s.endIndex - 1)].trimmed().string
        }
        guard !name.isEmpty else { return nil }
        self.text = s.string
        self.name = name.count == s.count ? self.text : name.string
        self.extension = ext
        self.dual = dual
    }

    /// True when `name` qualifies as an unforced Fountain cue: at least one letter and
    /// no lowercase letters.
    public static func isUppercaseName(_ name: Substring) -> Bool {
        var hasLetter = false
        for scalar in name.unicodeScalars {
            let v = scalar.value
            if v < 0x80 {
                if v >= 0x61 && v <= 0x7A { return false }
                if v >= 0x41 && v <= 0x5A { hasLetter = true }
            } else if scalar.properties.isAlphabetic {
                if scalar.properties.isLowercase { return false }
                hasLetter = true
            }
        }
        return hasLetter
    }
}

extension Substring {
    /// The substring without leading and trailing spaces, tabs and newlines.
    func trimmingSpaces() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" || f == "\n" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" { s = s.dropLast() }
        return s
    }
}

extension String {
    func trimmingSpaces() -> String { String(self[...].trimmingSpaces()) }
}
