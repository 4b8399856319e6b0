/// Fountain emphasis markup: `*italic*`, `**bold**`, `***bold italic***`, `_underline_`
/// and backslash escapes (`\*`, `\_`, `\\`).
public enum Emphasis {
    /// A stretch of text with one combination of styles (markup removed, escapes resolved).
    public struct Run: Sendable, Hashable {
        public var text: String
        public var bold: Bool
        public var italic: Bool
        public var underline: Bool
        /// Creates a run.
        public init(text: String, bold: Bool = false, italic: Bool = false, underline: Bool = false) {
            self.text = text
            self.bold = bold
            self.italic = italic
            self.underline = underline
        }
    }

    /// Returns `text` without emphasis markup, with backslash escapes resolved.
    ///
    /// A delimiter run (`*`, `**`, `***` or `_`) is treated as markup only when it is paired
    /// on the same line with a matching run: the opener must be followed by a non-space
    /// character and the closer preceded by one. Unpaired delimiters (`5 * 3`) are kept.
    /// `\x` becomes `x` for any character; a trailing lone backslash is kept.
    public static func strip(_ text: String) -> String {
        if !needsWork(text) { return text }
        return runs(text).map(\.text).joined()
    }

    /// Splits `text` into styled runs (same pairing rules as ``strip(_:)``). Adjacent runs
    /// with the same styles are merged; newlines stay inside runs.
    public static func runs(_ text: String) -> [Run] {
        if !needsWork(text) { return text.isEmpty ? [] : [Run(text: text)] }
        var result: [Run] = []
        var first = true
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !first { append("\n", bold: false, italic: false, underline: false, to: &result) }
            first = false
            lineRuns(Array(line), into: &result)
        }
        return result
    }

    /// Fountain markup for one run: escapes `\`, `*` and `_`, then wraps the run's
    /// non-space core in `*`/`**`/`***` and `_` (underline outermost), line by line.
    public static func markup(_ run: Run) -> String {
        var escaped = ""
        for c in run.text {
            if c == "\\" || c == "*" || c == "_" { escaped.append("\\") }
            escaped.append(c)
        }
        guard run.bold || run.italic || run.underline else { return escaped }
        let stars = run.bold && run.italic ? "***" : run.bold ? "**" : run.italic ? "*" : ""
        let open = (run.underline ? "_" : "") + stars
        let close = stars + (run.underline ? "_" : "")
        return escaped.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let core = line.trimmingSpaces()
            guard !core.isEmpty else { return String(line) }
            let lead = line[line.startIndex..<core.startIndex]
            let trail = line[core.endIndex...]
            return lead + open + core + close + trail
        }.joined(separator: "\n")
    }

    private static func needsWork(_ text: String) -> Bool {
        text.utf8.contains(where: { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "\\") })
    }

    private static func append(_ s: String, bold: Bool, italic: Bool, underline: Bool, to runs: inout [Run]) {
        if let last = runs.last, last.bold == bold, last.italic == italic, last.underline == underline {
            runs[runs.count - 1].text += s
        } else {
            runs.append(Run(text: s, bold: bold, italic: italic, underline: underline))
        }
    }

    private struct Delimiter {
        var start: Int
        var length: Int
        var kind: Character
    }

    /// Pairs delimiter runs like CommonMark: a closing run consumes matching openers
    /// (two characters at a time when both sides have two, else one); openers give up
    /// characters from their right end, closers from their left; leftovers of a run that
    /// can open become a new opener. Styles toggle at the consumed characters.
    private static func lineRuns(_ chars: [Character], into result: inout [Run]) {
        let n = chars.count
        var escapes = Set<Int>()
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
        var removed = Set<Int>()
        // Style changes keyed by character index: (bold, italic, underline) deltas.
        var events: [Int: (Int, Int, Int)] = [:]
        func addEvent(_ at: Int, _ kind: Character, _ use: Int, _ delta: Int) {
            var e = events[at] ?? (0, 0, 0)
            if kind == "_" { e.2 += delta } else if use == 2 { e.0 += delta } else { e.1 += delta }
            events[at] = e
        }
        // One stack per delimiter kind, each ordered by position; the top always has
        // characters available, so matching is amortised O(1) per delimiter.
        var stars: [(start: Int, available: Int)] = []
        var unders: [(start: Int, available: Int)] = []
        for d in delimiters {
            let before = d.start - 1
            let after = d.start + d.length
            let canClose = before >= 0 && !chars[before].isWhitespace
            let canOpen = after < n && !chars[after].isWhitespace
            var remaining = d.length
            var offset = 0
            if canClose {
                while remaining > 0, let o = (d.kind == "*" ? stars.last : unders.last) {
                    let use = (d.kind == "*" && remaining >= 2 && o.available >= 2) ? 2 : 1
                    let openAt = o.start + o.available - use
                    for k in openAt..<(openAt + use) { removed.insert(k) }
                    addEvent(openAt, d.kind, use, 1)
                    let closeAt = d.start + offset
                    for k in closeAt..<(closeAt + use) { removed.insert(k) }
                    addEvent(closeAt, d.kind, use, -1)
                    offset += use
                    remaining -= use
                    // Openers of the other kind inside the closed span can no longer match.
                    if d.kind == "*" {
                        while let u = unders.last, u.start > o.start { unders.removeLast() }
                        stars[stars.count - 1].available -= use
                        if stars[stars.count - 1].available == 0 { stars.removeLast() }
                    } else {
                        while let st = stars.last, st.start > o.start { stars.removeLast() }
                        unders[unders.count - 1].available -= use
                        if unders[unders.count - 1].available == 0 { unders.removeLast() }
                    }
                }
            }
            if remaining > 0 && canOpen {
                if d.kind == "*" { stars.append((d.start + offset, remaining)) } else { unders.append((d.start + offset, remaining)) }
            }
        }
        var bold = 0, italic = 0, underline = 0
        var current = ""
        func flush() {
            if !current.isEmpty {
                append(current, bold: bold > 0, italic: italic > 0, underline: underline > 0, to: &result)
                current = ""
            }
        }
        for j in 0..<n {
            if let e = events[j] {
                flush()
                bold += e.0; italic += e.1; underline += e.2
            }
            if removed.contains(j) || escapes.contains(j) { continue }
            current.append(chars[j])
        }
        flush()
    }
}

extension Element {
    /// The element's text without emphasis markup and with `\` escapes resolved
    /// (see ``Emphasis/strip(_:)``); the form used for speech.
    public var plainText: String { Emphasis.strip(text) }
}
