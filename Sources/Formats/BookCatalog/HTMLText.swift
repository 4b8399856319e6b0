/// The bits of HTML the exports leave in their text: Goodreads reviews break lines with `<br/>`,
/// LibraryThing's JSON escapes `&amp;`, its TSV writes paragraph breaks as `[Return]`.
enum HTMLText {
    /// `text` with `<br>`, `<br/>` and `<br />` (any case) and LibraryThing's `[Return]` as line
    /// breaks, trimmed; `nil` when nothing is left.
    static func review(_ text: String) -> String? {
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(where: { $0 == "<" || $0 == "[" }) {
            result += rest[..<open]
            let tail = rest[open...]
            if let length = lineBreakLength(tail) {
                result += "\n"
                rest = tail.dropFirst(length)
            } else {
                result += tail.prefix(1)
                rest = tail.dropFirst()
            }
        }
        result += rest
        let trimmed = result.trimmingSpaces
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The length of a line-break tag at the start of `text`, if one is there.
    private static func lineBreakLength(_ text: Substring) -> Int? {
        if text.hasPrefix("[Return]") { return 8 }
        let lower = text.prefix(6).lowercased()
        for tag in ["<br/>", "<br />", "<br>"] where lower.hasPrefix(tag) { return tag.count }
        return nil
    }

    /// `text` with the character references `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&#39;`,
    /// `&#NNN;` and `&#xHH;` decoded; anything else (and a reference to no character) kept as written.
    static func decodingEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let tail = rest[amp...]
            if let semicolon = tail.prefix(10).firstIndex(of: ";"),
               let decoded = entity(tail[tail.index(after: amp)..<semicolon]) {
                result.append(decoded)
                rest = tail[tail.index(after: semicolon)...]
            } else {
                result.append("&")
                rest = tail.dropFirst()
            }
        }
        return result + rest
    }

    private static func entity(_ name: Substring) -> Character? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default: break
        }
        guard name.hasPrefix("#") else { return nil }
        let number = name.dropFirst()
        let hex = number.hasPrefix("x") || number.hasPrefix("X")
        let digits = hex ? number.dropFirst() : number
        guard (1...6).contains(digits.count),
              digits.allSatisfy({ $0.isASCII && (hex ? $0.isHexDigit : $0.isNumber) }),
              let value = UInt32(digits, radix: hex ? 16 : 10), let scalar = Unicode.Scalar(value) else { return nil }
        return Character(scalar)
    }
}
