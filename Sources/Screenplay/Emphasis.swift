/// Fountain emphasis markup: `*italic*`, `**bold**`, `***bold italic***`, `_underline_`
/// and backslash escapes (`\*`, `\_`, `\\`).
public enum Emphasis {
    /// Returns `text` without emphasis markup, with backslash escapes resolved.
    ///
    /// A delimiter run (`*`, `**`, `***` or `_`) is treated as markup only when it is paired
    /// on the same line with a matching run: the opener must be followed by a non-space
    /// character and the closer preceded by one. Unpaired delimiters (`5 * 3`) are kept.
    /// `\x` becomes `x` for any character; a trailing lone backslash is kept.
    public static func strip(_ text: String) -> String {
        // Fast path: nothing to do.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "\\") }) {
            return text
        }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var first = true
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !first { out.append("\n") }
            first = false
            stripLine(Array(line), into: &out)
        }
        return out
    }

    private struct Delimiter {
        var start: Int
        var length: Int
        var kind: Character
        var removed = false
    }

    private static func stripLine(_ chars: [Character], into out: inout String) {
        let n = chars.count
        var escapes = Set<Int>()  // indices of escaping backslashes
        var delimiters: [Delimiter] = []
        var i = 0
        while i < n {
            let c = chars[i]
            if c == "\\" && i + 1 < n {
                escapes.insert(i)
                i += 2
            } else if c == "*" {
                var k = 1
                while i + k < n && chars[i + k] == "*" { k += 1 }
                delimiters.append(Delimiter(start: i, length: k, kind: "*"))
                i += k
            } else if c == "_" {
                delimiters.append(Delimiter(start: i, length: 1, kind: "_"))
                i += 1
            } else {
                i += 1
            }
        }
        if !delimiters.isEmpty {
            var stack: [Int] = []
            for d in delimiters.indices {
                let del = delimiters[d]
                let before = del.start - 1
                let after = del.start + del.length
                let canClose = before >= 0 && !chars[before].isWhitespace
                let canOpen = after < n && !chars[after].isWhitespace
                var closed = false
                if canClose {
                    if let pos = stack.lastIndex(where: {
                        delimiters[$0].kind == del.kind && delimiters[$0].length == del.length
                    }) {
                        delimiters[stack[pos]].removed = true
                        delimiters[d].removed = true
                        stack.removeSubrange(pos...)
                        closed = true
                    }
                }
                if !closed && canOpen { stack.append(d) }
            }
        }
        var removedIndex = Set<Int>()
        for d in delimiters where d.removed {
            for j in d.start..<(d.start + d.length) { removedIndex.insert(j) }
        }
        for j in 0..<n where !escapes.contains(j) && !removedIndex.contains(j) {
            out.append(chars[j])
        }
    }
}

extension Element {
    /// The element's text without emphasis markup and with `\` escapes resolved
    /// (see ``Emphasis/strip(_:)``); the form used for speech.
    public var plainText: String { Emphasis.strip(text) }
}
