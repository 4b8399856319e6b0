/// A Fountain 1.1 parser (https://fountain.io/syntax), written as a hand-made line scanner
/// over UTF-8 bytes. See `docs/screenplay-format.md` for every rule and best-effort decision.
public struct FountainParser: Sendable {
    /// Creates a parser.
    public init() {}

    /// Parses Fountain text. Never fails: anything unrecognised becomes action.
    public func parse(_ text: String) -> ScreenplayDocument {
        var text = text
        return text.withUTF8 { buffer in
            var scanner = FountainLineScanner(source: buffer)
            scanner.scan()
            var body = FountainBodyParser(buf: scanner.buf, lines: scanner.lines, extras: scanner.extras)
            let titlePage = body.parseTitlePage()
            body.parseBody()
            var elements = body.elements
            body.elements = []
            elements.renumber()
            return ScreenplayDocument(format: .fountain, titlePage: titlePage, elements: elements)
        }
    }
}

// MARK: - Byte helpers

@inline(__always) func isSpaceByte(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

extension ArraySlice where Element == UInt8 {
    /// Without leading and trailing spaces.
    @inline(__always) func trimmed() -> ArraySlice<UInt8> {
        var lo = startIndex, hi = endIndex
        while lo < hi && isSpaceByte(self[lo]) { lo += 1 }
        while hi > lo && isSpaceByte(self[hi - 1]) { hi -= 1 }
        return self[lo..<hi]
    }
    /// Without trailing spaces.
    @inline(__always) func trimmedTrailing() -> ArraySlice<UInt8> {
        var hi = endIndex
        while hi > startIndex && isSpaceByte(self[hi - 1]) { hi -= 1 }
        return self[startIndex..<hi]
    }
    @inline(__always) var string: String { String(decoding: self, as: UTF8.self) }

    /// ASCII case-insensitive prefix test; `prefix` must be uppercase ASCII.
    func hasPrefixIgnoringCase(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard self.count >= count else { return false }
        let p = prefix.utf8Start
        for k in 0..<count {
            var c = self[startIndex + k]
            if c >= 0x61 && c <= 0x7A { c -= 0x20 }
            if c != p[k] { return false }
        }
        return true
    }
}

// MARK: - Pass 1: lines, notes and boneyard

/// One physical line after normalisation (CRLF/CR → LF, tab → four spaces), or a
/// standalone note/boneyard block.
struct FountainLine {
    var start: Int
    var end: Int
    /// Index into the scanner's `extras` of a standalone block, or -1.
    var block: Int
    /// Elements `extras[attachedStart..<attachedEnd]` follow this line's element.
    var attachedStart: Int
    var attachedEnd: Int
    var isBlock: Bool { block >= 0 }
    var hasAttached: Bool { attachedEnd > attachedStart }
}

/// Splits the source into lines and lifts out `[[notes]]` and `/* boneyard */`.
struct FountainLineScanner {
    let src: UnsafeBufferPointer<UInt8>
    var buf: [UInt8] = []
    var lines: [FountainLine] = []
    var lineStart = 0
    /// Notes and boneyard lifted out of the text, referenced by lines.
    var extras: [Element] = []
    /// Start in `extras` of the elements attached to the current line.
    var attachedStart = 0
    /// A failed note search from any start before this index also fails (keeps scanning linear).
    var noteSearchFailsBefore = -1

    init(source: UnsafeBufferPointer<UInt8>) {
        self.src = source
        buf.reserveCapacity(source.count + 64)
        lines.reserveCapacity(source.count / 24)
    }

    mutating func finishLine() {
        lines.append(FountainLine(start: lineStart, end: buf.count, block: -1,
                                  attachedStart: attachedStart, attachedEnd: extras.count))
        attachedStart = extras.count
        lineStart = buf.count
    }

    mutating func scan() {
        let n = src.count
        var i = 0
        if n >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF { i = 3 }
        while i < n {
            let b = src[i]
            switch b {
            case 0x0A:
                finishLine(); i += 1
            case 0x0D:
                finishLine(); i += 1
                if i < n && src[i] == 0x0A { i += 1 }
            case 0x09:
                buf.append(contentsOf: [0x20, 0x20, 0x20, 0x20]); i += 1
            case UInt8(ascii: "/") where i + 1 < n && src[i + 1] == UInt8(ascii: "*"):
                let close = findBoneyardEnd(from: i + 2)
                let contentEnd = close ?? n
                let after = close.map { $0 + 2 } ?? n
                let element = Element(type: .boneyard, text: blockText(i + 2, contentEnd))
                i = place(element, after: after)
            case UInt8(ascii: "[") where i + 1 < n && src[i + 1] == UInt8(ascii: "["):
                guard i + 2 >= noteSearchFailsBefore, let close = findNoteEnd(from: i + 2) else {
                    buf.append(b); i += 1; continue
                }
                let element = Element(type: .comment, text: blockText(i + 2, close))
                i = place(element, after: close + 2)
            default:
                // Copy the run of ordinary bytes in one go.
                var j = i + 1
                while j < n {
                    let c = src[j]
                    if c == 0x0A || c == 0x0D || c == 0x09 || c == UInt8(ascii: "/") || c == UInt8(ascii: "[") { break }
                    j += 1
                }
                buf.append(contentsOf: UnsafeBufferPointer(rebasing: src[i..<j]))
                i = j
            }
        }
        if buf.count > lineStart || extras.count > attachedStart { finishLine() }
    }

    /// Places a note/boneyard: standalone (alone on its lines) becomes a block line;
    /// otherwise it is attached to the current line. Returns the next source index.
    mutating func place(_ element: Element, after: Int) -> Int {
        var prefixBlank = true
        for k in lineStart..<buf.count where !isSpaceByte(buf[k]) { prefixBlank = false; break }
        var j = after
        var restBlank = true
        while j < src.count && src[j] != 0x0A && src[j] != 0x0D {
            if !isSpaceByte(src[j]) { restBlank = false; break }
            j += 1
        }
        if prefixBlank && restBlank {
            for k in attachedStart..<extras.count {
                lines.append(FountainLine(start: 0, end: 0, block: k, attachedStart: 0, attachedEnd: 0))
            }
            buf.removeSubrange(lineStart..<buf.count)
            extras.append(element)
            lines.append(FountainLine(start: 0, end: 0, block: extras.count - 1, attachedStart: 0, attachedEnd: 0))
            attachedStart = extras.count
            if j < src.count && src[j] == 0x0D { j += 1 }
            if j < src.count && src[j] == 0x0A { j += 1 }
            return j
        }
        extras.append(element)
        return after
    }

    func findBoneyardEnd(from start: Int) -> Int? {
        var j = start
        let n = src.count
        while j + 1 < n {
            if src[j] == UInt8(ascii: "*") && src[j + 1] == UInt8(ascii: "/") { return j }
            j += 1
        }
        return nil
    }

    /// Notes may span lines but not an empty line (a line of spaces connects).
    mutating func findNoteEnd(from start: Int) -> Int? {
        var j = start
        let n = src.count
        var lineEmpty = false
        defer { if j >= n { noteSearchFailsBefore = n } }
        while j < n {
            let c = src[j]
            if c == 0x0A || c == 0x0D {
                if lineEmpty { noteSearchFailsBefore = j; return nil }
                if c == 0x0D && j + 1 < n && src[j + 1] == 0x0A { j += 1 }
                lineEmpty = true
            } else if c == UInt8(ascii: "]") && j + 1 < n && src[j + 1] == UInt8(ascii: "]") {
                return j
            } else {
                lineEmpty = false
            }
            j += 1
        }
        return nil
    }

    /// Inner text of a block: CRLF/CR → LF, tabs → spaces, trimmed.
    func blockText(_ from: Int, _ to: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(to - from)
        var k = from
        while k < to {
            let c = src[k]
            if c == 0x0D {
                bytes.append(0x0A)
                if k + 1 < to && src[k + 1] == 0x0A { k += 1 }
            } else if c == 0x09 {
                bytes.append(contentsOf: [0x20, 0x20, 0x20, 0x20])
            } else {
                bytes.append(c)
            }
            k += 1
        }
        return String(decoding: bytes, as: UTF8.self).trimmingSpaces()
    }
}

// MARK: - Line classification

/// What a single body line is, given its context.
enum FountainLineKind: Equatable {
    case pageBreak
    case action(String)
    case character(CharacterCue)
    case lyrics(String)
    case section(Int, String)
    case synopsis(String)
    case sceneHeading(String, String?)
    case centered(String)
    case transition(String)
    case parenthetical(String)
    case dialogue(String)
}

enum FountainClassifier {
    /// Classifies a non-blank line. `raw` keeps leading whitespace.
    static func classify(_ raw: ArraySlice<UInt8>, prevBlank: Bool, inDialogue: Bool,
                         nextBlank: () -> Bool) -> FountainLineKind {
        let t = raw.trimmed()
        let first = t[t.startIndex]
        if inDialogue {
            if first == UInt8(ascii: "(") && t.last == UInt8(ascii: ")") { return .parenthetical(t.string) }
            return .dialogue(t.string)
        }
        if first == UInt8(ascii: "=") && t.count >= 3 && t.allSatisfy({ $0 == UInt8(ascii: "=") }) {
            return .pageBreak
        }
        switch first {
        case UInt8(ascii: "!"):
            let lead = raw.firstIndex(of: UInt8(ascii: "!"))! + 1
            return .action(raw[lead...].trimmedTrailing().string)
        case UInt8(ascii: "@"):
            if !nextBlank(), let cue = CharacterCue(bytes: t) { return .character(cue) }
        case UInt8(ascii: "~"):
            return .lyrics(t.dropFirst().trimmed().string)
        case UInt8(ascii: "#"):
            var level = 0
            var k = t.startIndex
            while k < t.endIndex && t[k] == UInt8(ascii: "#") { level += 1; k += 1 }
            return .section(level, t[k...].trimmed().string)
        case UInt8(ascii: "="):
            return .synopsis(t.dropFirst().trimmed().string)
        case UInt8(ascii: "."):
            if t.count >= 2 {
                let c = t[t.startIndex + 1]
                if c >= 0x80 || (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A) {
                    let (heading, number) = splitSceneNumber(t.dropFirst())
                    return .sceneHeading(heading, number)
                }
            }
        case UInt8(ascii: ">"):
            if t.count >= 2 && t.last == UInt8(ascii: "<") {
                return .centered(t.dropFirst().dropLast().trimmed().string)
            }
            return .transition(t.dropFirst().trimmed().string)
        default:
            break
        }
        if prevBlank {
            if isSceneHeading(t) {
                let (heading, number) = splitSceneNumber(t)
                return .sceneHeading(heading, number)
            }
            if t.count >= 3 && t.suffix(3).elementsEqual("TO:".utf8) && isUppercase(t) && nextBlank() {
                return .transition(t.string)
            }
            if first != UInt8(ascii: "@") && Self.mayBeCue(t) && !nextBlank() {
                if let cue = CharacterCue(bytes: t), CharacterCue.isUppercaseName(Substring(cue.name)) {
                    return .character(cue)
                }
            }
        }
        return .action(raw.trimmedTrailing().string)
    }

    /// Fast byte check: the part before any `(` has no ASCII lowercase letter.
    @inline(__always) static func mayBeCue(_ t: ArraySlice<UInt8>) -> Bool {
        for c in t {
            if c == UInt8(ascii: "(") { return true }
            if c >= 0x61 && c <= 0x7A { return false }
        }
        return true
    }

    /// `INT`, `EXT`, `EST`, `INT./EXT`, `INT/EXT`, `I/E` followed by `.` or space, any case.
    static func isSceneHeading(_ t: ArraySlice<UInt8>) -> Bool {
        let prefixLength: Int
        if t.hasPrefixIgnoringCase("INT./EXT") { prefixLength = 8 }
        else if t.hasPrefixIgnoringCase("INT/EXT") { prefixLength = 7 }
        else if t.hasPrefixIgnoringCase("I/E") { prefixLength = 3 }
        else if t.hasPrefixIgnoringCase("INT") || t.hasPrefixIgnoringCase("EXT") || t.hasPrefixIgnoringCase("EST") {
            prefixLength = 3
        } else { return false }
        guard t.count > prefixLength else { return false }
        let c = t[t.startIndex + prefixLength]
        return c == UInt8(ascii: ".") || c == UInt8(ascii: " ")
    }

    /// Splits a trailing `#1A#` scene number off a heading.
    static func splitSceneNumber(_ t: ArraySlice<UInt8>) -> (String, String?) {
        let t = t.trimmed()
        guard t.count >= 3, t.last == UInt8(ascii: "#") else { return (t.string, nil) }
        var k = t.endIndex - 2
        while k > t.startIndex {
            let c = t[k]
            if c == UInt8(ascii: "#") { break }
            let ok = c >= 0x80 || (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A)
                || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
            if !ok { return (t.string, nil) }
            k -= 1
        }
        guard t[k] == UInt8(ascii: "#"), k < t.endIndex - 2, k > t.startIndex else { return (t.string, nil) }
        let heading = t[t.startIndex..<k].trimmed()
        guard !heading.isEmpty else { return (t.string, nil) }
        return (heading.string, t[(k + 1)..<(t.endIndex - 1)].string)
    }

    /// No lowercase letters and at least one letter.
    static func isUppercase(_ t: ArraySlice<UInt8>) -> Bool {
        var hasLetter = false
        for c in t {
            if c >= 0x80 { return CharacterCue.isUppercaseName(Substring(t.string)) }
            if c >= 0x61 && c <= 0x7A { return false }
            if c >= 0x41 && c <= 0x5A { hasLetter = true }
        }
        return hasLetter
    }
}

// MARK: - Pass 2: title page and body

struct FountainBodyParser {
    let buf: [UInt8]
    let lines: [FountainLine]
    let extras: [Element]
    var index = 0
    var elements: [Element] = []

    init(buf: [UInt8], lines: [FountainLine], extras: [Element]) {
        self.buf = buf
        self.lines = lines
        self.extras = extras
        elements.reserveCapacity(lines.count + extras.count)
    }

    func bytes(_ line: FountainLine) -> ArraySlice<UInt8> { buf[line.start..<line.end] }

    func isBlank(_ line: FountainLine) -> Bool {
        !line.isBlock && bytes(line).allSatisfy(isSpaceByte)
    }

    /// Parses the title page if the first line is `Key: value`. Keys are kept as written and
    /// in order; values are the inline value and/or indented continuation lines.
    mutating func parseTitlePage() -> [TitlePageEntry] {
        var entries: [TitlePageEntry] = []
        var k = 0
        while k < lines.count {
            let line = lines[k]
            if line.isBlock || line.hasAttached { return [] }
            let raw = bytes(line)
            if raw.allSatisfy(isSpaceByte) { break }
            let indented = raw.count >= 3 && raw.prefix(3).allSatisfy({ $0 == 0x20 })
            if indented {
                guard !entries.isEmpty else { return [] }
                entries[entries.count - 1].values.append(raw.trimmed().string)
            } else {
                guard !isSpaceByte(raw[raw.startIndex]),
                      let colon = raw.firstIndex(of: UInt8(ascii: ":")), colon > raw.startIndex else { return [] }
                let key = raw[raw.startIndex..<colon].trimmed()
                if key.isEmpty || FountainClassifier.isSceneHeading(key) { return [] }
                let value = raw[(colon + 1)...].trimmed()
                entries.append(TitlePageEntry(key: key.string, values: value.isEmpty ? [] : [value.string]))
            }
            k += 1
        }
        guard let first = entries.first, !first.values.isEmpty else { return [] }
        index = k
        return entries
    }

    mutating func parseBody() {
        var paragraph: (type: ElementType, text: String)? = nil
        var prevBlank = true
        var inDialogue = false

        func flush() {
            if let p = paragraph {
                elements.append(Element(type: p.type, text: p.text))
                paragraph = nil
            }
        }

        var k = index
        while k < lines.count {
            let line = lines[k]
            defer { k += 1 }
            if line.isBlock {
                flush()
                elements.append(extras[line.block])
                continue
            }
            let raw = bytes(line)
            if raw.allSatisfy(isSpaceByte) {
                if paragraph != nil && raw.count >= 2 {
                    paragraph!.text += "\n"
                } else {
                    flush()
                    prevBlank = true
                    inDialogue = false
                }
                if line.hasAttached { flush(); elements.append(contentsOf: extras[line.attachedStart..<line.attachedEnd]) }
                continue
            }
            let next = k + 1
            let kind = FountainClassifier.classify(raw, prevBlank: prevBlank, inDialogue: inDialogue) {
                var j = next
                while j < lines.count && lines[j].isBlock { j += 1 }
                return j >= lines.count || isBlank(lines[j])
            }
            switch kind {
            case .dialogue(let text):
                if paragraph?.type == .dialogue { paragraph!.text += "\n"; paragraph!.text += text }
                else { flush(); paragraph = (.dialogue, text) }
            case .action(let text):
                if paragraph?.type == .action { paragraph!.text += "\n"; paragraph!.text += text }
                else { flush(); paragraph = (.action, text) }
                inDialogue = false
            case .parenthetical(let text):
                flush()
                elements.append(Element(type: .parenthetical, text: text))
            case .character(let cue):
                flush()
                elements.append(Element(type: .character, text: cue.text, name: cue.name,
                                        extension: cue.extension, dual: cue.dual ? true : nil))
                inDialogue = true
            default:
                flush()
                inDialogue = false
                elements.append(Self.element(for: kind))
            }
            prevBlank = false
            if line.hasAttached { flush(); elements.append(contentsOf: extras[line.attachedStart..<line.attachedEnd]) }
        }
        flush()
    }

    static func element(for kind: FountainLineKind) -> Element {
        switch kind {
        case .pageBreak: return Element(type: .pageBreak, text: "")
        case .lyrics(let t): return Element(type: .lyrics, text: t)
        case let .section(level, t): return Element(type: .sectionHeading, text: t, level: level)
        case .synopsis(let t): return Element(type: .synopsis, text: t)
        case let .sceneHeading(t, number): return Element(type: .sceneHeading, text: t, sceneNumber: number)
        case .centered(let t): return Element(type: .centered, text: t)
        case .transition(let t): return Element(type: .transition, text: t)
        case .action(let t): return Element(type: .action, text: t)
        case .dialogue(let t): return Element(type: .dialogue, text: t)
        case .parenthetical(let t): return Element(type: .parenthetical, text: t)
        case .character(let cue):
            return Element(type: .character, text: cue.text, name: cue.name, extension: cue.extension,
                           dual: cue.dual ? true : nil)
        }
    }
}
