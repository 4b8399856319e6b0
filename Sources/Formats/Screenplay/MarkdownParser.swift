/// A Markdown parser for CommonMark block structure, mapped onto screenplay elements:
/// ATX/Setext headings → `sectionHeading` (level-2 starts a chapter), paragraphs, lists,
/// block quotes and code → `action`, thematic breaks → `pageBreak`, HTML blocks →
/// `comment`. YAML-style front matter (`---` … `---`) becomes the title page.
/// Inline markup is kept in `text`.
public struct MarkdownParser: Sendable {
    /// Creates a parser.
    public init() {}

    /// Parses Markdown text. Never fails.
    public func parse(_ text: String) -> ScreenplayDocument {
        var source = text[...]
        if source.hasPrefix("\u{FEFF}") { source = source.dropFirst() }
        let lines: [String] = source.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { line in line.contains("\t") ? line.replacingTabs() : String(line) }
        var state = MarkdownBlockParser(lines: lines)
        let titlePage = state.frontMatter()
        state.parseBlocks()
        var doc = ScreenplayDocument(format: .markdown, titlePage: titlePage, elements: state.elements)
        doc.renumber()
        return doc
    }
}

extension Substring {
    func replacingTabs() -> String {
        var out = ""
        var column = 0
        for c in self {
            if c == "\t" {
                let pad = 4 - column % 4
                out += String(repeating: " ", count: pad)
                column += pad
            } else {
                out.append(c)
                column += 1
            }
        }
        return out
    }
}

struct MarkdownBlockParser {
    let lines: [String]
    var i = 0
    var elements: [Element] = []
    var paragraph: [String] = []

    init(lines: [String]) { self.lines = lines }

    static func indent(_ s: String) -> Int {
        var n = 0
        for c in s.utf8 { if c == 0x20 { n += 1 } else { break } }
        return n
    }

    mutating func frontMatter() -> [TitlePageEntry] {
        guard lines.first?.trimmingSpaces() == "---" else { return [] }
        var entries: [TitlePageEntry] = []
        var k = 1
        while k < lines.count {
            let raw = lines[k]
            let t = raw.trimmingSpaces()
            if t == "---" || t == "..." {
                guard !entries.isEmpty else { return [] }
                i = k + 1
                return entries
            }
            if t.isEmpty { k += 1; continue }
            if Self.indent(raw) > 0 || t.hasPrefix("- ") {
                guard !entries.isEmpty else { return [] }
                let v = t.hasPrefix("- ") ? String(t.dropFirst(2)).trimmingSpaces() : t
                entries[entries.count - 1].values.append(Self.unquote(v))
            } else {
                guard let colon = t.firstIndex(of: ":"), colon > t.startIndex else { return [] }
                let key = String(t[..<colon]).trimmingSpaces()
                let value = String(t[t.index(after: colon)...]).trimmingSpaces()
                entries.append(TitlePageEntry(key: key, values: value.isEmpty || value == "|" || value == ">" ? [] : [Self.unquote(value)]))
            }
            k += 1
        }
        return []
    }

    static func unquote(_ v: String) -> String {
        if v.count >= 2, let f = v.first, f == "\"" || f == "'", v.last == f { return String(v.dropFirst().dropLast()) }
        return v
    }

    mutating func flushParagraph() {
        if !paragraph.isEmpty {
            elements.append(Element(type: .action, text: paragraph.joined(separator: "\n")))
            paragraph = []
        }
    }

    static func atxHeading(_ t: String) -> (Int, String)? {
        var level = 0
        var idx = t.startIndex
        while idx < t.endIndex && t[idx] == "#" { level += 1; idx = t.index(after: idx) }
        guard level >= 1 && level <= 6 else { return nil }
        guard idx == t.endIndex || t[idx] == " " else { return nil }
        var text = t[idx...].trimmingSpaces()
        // Optional closing sequence: spaces then #s.
        var end = text.endIndex
        while end > text.startIndex && text[text.index(before: end)] == "#" { end = text.index(before: end) }
        if end < text.endIndex && (end == text.startIndex || text[text.index(before: end)] == " ") {
            text = text[..<end].trimmingSpaces()
        }
        return (level, String(text))
    }

    static func isThematicBreak(_ t: String) -> Bool {
        guard let c = t.first, c == "*" || c == "-" || c == "_" else { return false }
        var count = 0
        for x in t {
            if x == c { count += 1 } else if x != " " { return false }
        }
        return count >= 3
    }

    static func fence(_ t: String) -> (Character, Int)? {
        guard let c = t.first, c == "`" || c == "~" else { return nil }
        let n = t.prefix(while: { $0 == c }).count
        guard n >= 3 else { return nil }
        if c == "`" && t.dropFirst(n).contains("`") { return nil }
        return (c, n)
    }

    static func listMarker(_ t: String) -> Bool {
        guard let c = t.first else { return false }
        if c == "-" || c == "+" || c == "*" {
            return t.count == 1 || t.dropFirst().first == " "
        }
        let digits = t.prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, digits.count <= 9 else { return false }
        let rest = t.dropFirst(digits.count)
        guard let m = rest.first, m == "." || m == ")" else { return false }
        return rest.count == 1 || rest.dropFirst().first == " "
    }

    /// The list kind of a marker line: the bullet character, or `.`/`)` for ordered lists.
    static func listKind(_ t: String) -> Character? {
        guard listMarker(t), let c = t.first else { return nil }
        if c == "-" || c == "+" || c == "*" { return c }
        return t.first(where: { $0 == "." || $0 == ")" })
    }

    static func htmlStart(_ t: String) -> Bool {
        guard t.hasPrefix("<"), t.count >= 2 else { return false }
        let c = t[t.index(after: t.startIndex)]
        return c.isLetter || c == "/" || c == "!" || c == "?"
    }

    mutating func parseBlocks() {
        while i < lines.count {
            let raw = lines[i]
            let t = raw.trimmingSpaces()
            let indent = Self.indent(raw)
            if t.isEmpty { flushParagraph(); i += 1; continue }
            if indent >= 4 && paragraph.isEmpty { indentedCode(); continue }
            if indent >= 4 { paragraph.append(t); i += 1; continue }
            if let (c, n) = Self.fence(t) { flushParagraph(); fencedCode(c, n, indent); continue }
            if let (level, text) = Self.atxHeading(t) {
                flushParagraph()
                elements.append(Element(type: .sectionHeading, text: text, level: level))
                i += 1; continue
            }
            if !paragraph.isEmpty && (t.allSatisfy { $0 == "=" } || t.allSatisfy { $0 == "-" }) {
                let text = paragraph.joined(separator: " ")
                paragraph = []
                elements.append(Element(type: .sectionHeading, text: text, level: t.first == "=" ? 1 : 2))
                i += 1; continue
            }
            if Self.isThematicBreak(t) {
                flushParagraph()
                elements.append(Element(type: .pageBreak, text: ""))
                i += 1; continue
            }
            if t.hasPrefix(">") { flushParagraph(); blockQuote(); continue }
            if Self.htmlStart(t) && (paragraph.isEmpty || t.hasPrefix("<!--")) { flushParagraph(); htmlBlock(); continue }
            if Self.listMarker(t) { flushParagraph(); list(); continue }
            paragraph.append(t)
            i += 1
        }
        flushParagraph()
    }

    mutating func indentedCode() {
        var body: [String] = []
        while i < lines.count {
            let raw = lines[i]
            if raw.trimmingSpaces().isEmpty { body.append(""); i += 1; continue }
            if Self.indent(raw) < 4 { break }
            body.append(String(raw.dropFirst(4)).trimmingTrailingSpaces())
            i += 1
        }
        while body.last == "" { body.removeLast() }
        elements.append(Element(type: .action, text: body.joined(separator: "\n")))
    }

    mutating func fencedCode(_ c: Character, _ n: Int, _ indent: Int) {
        i += 1
        var body: [String] = []
        while i < lines.count {
            let raw = lines[i]
            let t = raw.trimmingSpaces()
            i += 1
            if Self.indent(raw) < 4, t.first == c, t.prefix(while: { $0 == c }).count >= n, t.allSatisfy({ $0 == c }) { break }
            var line = Substring(raw)
            var drop = indent
            while drop > 0, line.first == " " { line = line.dropFirst(); drop -= 1 }
            body.append(String(line).trimmingTrailingSpaces())
        }
        while body.first == "" { body.removeFirst() }
        while body.last == "" { body.removeLast() }
        if !body.isEmpty { elements.append(Element(type: .action, text: body.joined(separator: "\n"))) }
    }

    mutating func blockQuote() {
        var body: [String] = []
        while i < lines.count {
            let t = lines[i].trimmingSpaces()
            guard t.hasPrefix(">"), Self.indent(lines[i]) < 4 else { break }
            var rest = t.dropFirst()
            if rest.first == " " { rest = rest.dropFirst() }
            body.append(String(rest).trimmingTrailingSpaces())
            i += 1
        }
        while body.first == "" { body.removeFirst() }
        while body.last == "" { body.removeLast() }
        if !body.isEmpty { elements.append(Element(type: .action, text: body.joined(separator: "\n"))) }
    }

    mutating func htmlBlock() {
        let first = lines[i].trimmingSpaces()
        if first.hasPrefix("<!--") {
            var body: [String] = []
            while i < lines.count {
                body.append(lines[i])
                i += 1
                if body.last!.contains("-->") { break }
            }
            var joined = body.joined(separator: "\n").trimmingSpaces()[...]
            joined = joined.dropFirst(4)
            if let end = joined.range(of: "-->") { joined = joined[..<end.lowerBound] }
            elements.append(Element(type: .comment, text: String(joined).trimmingSpaces()))
            return
        }
        var body: [String] = []
        while i < lines.count, !lines[i].trimmingSpaces().isEmpty {
            body.append(lines[i].trimmingTrailingSpaces())
            i += 1
        }
        elements.append(Element(type: .comment, text: body.joined(separator: "\n")))
    }

    mutating func list() {
        let kind = Self.listKind(lines[i].trimmingSpaces())
        var body: [String] = []
        while i < lines.count {
            let raw = lines[i]
            let t = raw.trimmingSpaces()
            if t.isEmpty {
                // A blank line continues the list when the next line is an item or indented.
                var j = i + 1
                while j < lines.count && lines[j].trimmingSpaces().isEmpty { j += 1 }
                guard j < lines.count else { break }
                let nt = lines[j].trimmingSpaces()
                if (Self.indent(lines[j]) < 2 && Self.listKind(nt) == kind) || Self.indent(lines[j]) >= 2 { i = j; continue }
                break
            }
            if !body.isEmpty && Self.indent(raw) < 2 && !Self.listMarker(t) {
                // Lazy continuation unless it starts another block.
                if Self.atxHeading(t) != nil || Self.isThematicBreak(t) || Self.fence(t) != nil || t.hasPrefix(">") || Self.htmlStart(t) { break }
            }
            if Self.indent(raw) < 4 && Self.isThematicBreak(t) && !body.isEmpty { break }
            if Self.indent(raw) < 2, let k = Self.listKind(t), k != kind { break }
            body.append(raw.trimmingTrailingSpaces())
            i += 1
        }
        elements.append(Element(type: .action, text: body.joined(separator: "\n")))
    }
}
