#if canImport(FoundationXML)
import FoundationXML
#else
import Foundation
#endif
import Foundation

/// A Final Draft (`.fdx`) parser built on `XMLParser`, hardened against hostile XML:
/// any `<!DOCTYPE` or `<!ENTITY` is rejected before parsing (so no internal entity
/// expansion and no external entities), external entity resolution is off, and nesting
/// is capped at ``maxDepth``. See `docs/screenplay-format.md` for the mapping.
public struct FDXParser: Sendable {
    /// Deepest XML nesting accepted.
    public static let maxDepth = 256

    /// Creates a parser.
    public init() {}

    /// Parses FDX text.
    public func parse(_ text: String) throws(ScreenplayError) -> ScreenplayDocument {
        if Self.declaresDTD(text) { throw .xmlDoctypeNotAllowed }
        let parser = XMLParser(data: Data(Self.declaringUTF8(text).utf8))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        let delegate = FDXParserDelegate()
        parser.delegate = delegate
        let ok = parser.parse()
        if let failure = delegate.failure { throw failure }
        if !ok {
            let message = parser.parserError.map { Self.describe($0) } ?? "unknown error"
            throw .malformedXML(line: parser.lineNumber, column: parser.columnNumber, message: message)
        }
        guard let root = delegate.root else {
            throw .malformedXML(line: parser.lineNumber, column: parser.columnNumber, message: "no root element")
        }
        guard delegate.rootClosed else {
            throw .malformedXML(line: parser.lineNumber, column: parser.columnNumber,
                                message: "unexpected end of document (truncated?)")
        }
        guard root == "FinalDraft" else { throw .notFinalDraft(root: root) }
        var doc = ScreenplayDocument(format: .fdx, titlePage: delegate.titlePage(),
                                     elements: delegate.elements + delegate.trailingNotes,
                                     warnings: delegate.warnings.all)
        doc.renumber()
        return doc
    }

    /// The text with its XML declaration's `encoding` set to UTF-8: the parser is always given
    /// UTF-8 bytes (the input was decoded already), whatever the file declared.
    static func declaringUTF8(_ text: String) -> String {
        guard text.hasPrefix("<?xml"), let end = text.range(of: "?>"),
              let attribute = text.range(of: "encoding", range: text.startIndex..<end.lowerBound) else { return text }
        var i = attribute.upperBound
        while i < end.lowerBound, text[i] == " " || text[i] == "=" || text[i] == "\t" { i = text.index(after: i) }
        guard i < end.lowerBound, text[i] == "\"" || text[i] == "'" else { return text }
        let quote = text[i]
        let valueStart = text.index(after: i)
        guard let close = text[valueStart..<end.lowerBound].firstIndex(of: quote) else { return text }
        return text.replacingCharacters(in: valueStart..<close, with: "UTF-8")
    }

    static func describe(_ error: any Error) -> String {
        let ns = error as NSError
        let text = ns.localizedDescription
        if text.isEmpty || text.contains("The operation could not be completed") {
            return "XML parser error \(ns.code)"
        }
        return text
    }

    /// True when the text contains `<!DOCTYPE` or `<!ENTITY` (ASCII case-insensitive).
    static func declaresDTD(_ text: String) -> Bool {
        var matched = 0
        var sawBang = false
        var utf8 = text.utf8.makeIterator()
        let doctype = Array("DOCTYPE".utf8), entity = Array("ENTITY".utf8)
        var candidate: [UInt8] = []
        while let b = utf8.next() {
            if sawBang {
                var u = b
                if u >= 0x61 && u <= 0x7A { u -= 0x20 }
                candidate.append(u)
                matched += 1
                if candidate == doctype || candidate == entity { return true }
                if !(doctype.starts(with: candidate) || entity.starts(with: candidate)) {
                    sawBang = false; candidate = []; matched = 0
                }
                continue
            }
            if b == UInt8(ascii: "<") {
                if let n = utf8.next() {
                    if n == UInt8(ascii: "!") { sawBang = true; candidate = []; matched = 0 }
                }
            }
        }
        return false
    }
}

/// Streams the XML into elements. One instance per parse; never shared.
///
/// Script paragraphs are read wherever they sit under the body's `<Content>` (or the title page's):
/// Final Draft nests dual dialogue as `<Paragraph><DualDialogue><Paragraph …>…` and other tools
/// nest differently, so a nested paragraph ends the text of the one around it (which is emitted
/// first, in document order) and becomes an element of its own. Nesting the format does not
/// define, paragraph types the parser does not know and text outside any paragraph are kept and
/// reported as ``ParseWarning``s; nothing under `<Content>` is dropped.
final class FDXParserDelegate: NSObject, XMLParserDelegate {
    struct Paragraph {
        var type = ""
        var number: String?
        var alignment: String?
        var startsNewPage = false
        var runs: [Emphasis.Run] = []
        var notes: [Element] = []
        var summary: [String] = []
        var titleKey: String?
        var level: Int?
        /// The XML depth of the `<Paragraph>` (or stray `<Text>`) that opened it.
        var depth = 0
        var isTitle = false
        /// Part of its text was emitted before a nested paragraph.
        var flushed = false
        /// A stray `<Text>` outside any paragraph, read as action.
        var implicit = false
        var line = 0
    }

    /// Where the parser is: the script body, the title page, or elsewhere (settings, headers).
    enum Area { case body, title }

    var root: String?
    var rootClosed = false
    var failure: ScreenplayError?
    var elements: [Element] = []
    var trailingNotes: [Element] = []
    var titleParagraphs: [Paragraph] = []
    var warnings = ParseWarnings()

    private var stack: [String] = []
    private var open: [Paragraph] = []         // script or title paragraphs being read, outermost first
    private var noteParagraphs: [String]?      // inside <ScriptNote>
    private var noteIsBoneyard = false
    private var noteInsideParagraph = false
    private var summaryParagraphs: [String]?   // inside <Summary>
    private var innerText = ""                 // a <Paragraph> nested in a note or summary
    private var textStyle: (bold: Bool, italic: Bool, underline: Bool)?
    private var dualDepth = 0
    private var dualCharacters = 0
    private var line = 0

    /// The area of the element on top of the stack.
    private var area: Area? {
        guard stack.count >= 2, stack[0] == "FinalDraft" else { return nil }
        if stack[1] == "Content" { return .body }
        if stack.count >= 3, stack[1] == "TitlePage", stack[2] == "Content" { return .title }
        return nil
    }

    private var inNoteOrSummary: Bool { noteParagraphs != nil || summaryParagraphs != nil }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        if root == nil { root = name }
        stack.append(name)
        line = parser.lineNumber
        if stack.count > FDXParser.maxDepth {
            failure = .xmlTooDeep(limit: FDXParser.maxDepth)
            parser.abortParsing()
            return
        }
        switch name {
        case "Paragraph":
            if inNoteOrSummary {
                if !innerText.isEmpty { appendInner() }
                innerText = ""
                return
            }
            guard let area else { return }
            let parent = stack[stack.count - 2]
            if !open.isEmpty {
                if parent != "DualDialogue" {
                    warnings.add(.unexpectedNesting, "a paragraph inside a <\(parent)> was read as an element of its own",
                                 line: line)
                }
                flush(&open[open.count - 1])
            } else if parent != "Content" && parent != "DualDialogue" {
                warnings.add(.unexpectedNesting, "a paragraph inside <\(parent)> was read as an element of its own",
                             line: line)
            }
            var p = Paragraph()
            p.type = attributes["Type"] ?? ""
            p.number = attributes["Number"].flatMap { $0.isEmpty ? nil : $0 }
            p.alignment = attributes["Alignment"]
            p.startsNewPage = attributes["StartsNewPage"] == "Yes"
            p.titleKey = attributes["TitleKey"]
            p.level = attributes["Level"].flatMap { Int($0) }
            p.depth = stack.count
            p.isTitle = area == .title
            p.line = line
            open.append(p)
        case "Text":
            let style = attributes["Style"] ?? ""
            let parts = style.split(separator: "+")
            textStyle = (parts.contains("Bold"), parts.contains("Italic"), parts.contains("Underline"))
            if open.isEmpty, !inNoteOrSummary, let area {
                var p = Paragraph()
                p.type = "Action"
                p.depth = stack.count
                p.isTitle = area == .title
                p.implicit = true
                p.line = line
                open.append(p)
            }
        case "ScriptNote":
            noteParagraphs = []
            innerText = ""
            noteIsBoneyard = attributes["Kind"] == "Boneyard"
            noteInsideParagraph = !open.isEmpty
        case "Summary":
            if !open.isEmpty { summaryParagraphs = []; innerText = "" }
        case "DualDialogue":
            if !open.isEmpty { flush(&open[open.count - 1]) }
            dualDepth += 1
            dualCharacters = 0
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard let style = textStyle, stack.last == "Text" else { return }
        let run = Emphasis.Run(text: string, bold: style.bold, italic: style.italic, underline: style.underline)
        if inNoteOrSummary {
            innerText += Emphasis.markup(run)
        } else if !open.isEmpty {
            let i = open.count - 1
            if let last = open[i].runs.last, last.bold == run.bold, last.italic == run.italic,
               last.underline == run.underline {
                open[i].runs[open[i].runs.count - 1].text += string
            } else {
                open[i].runs.append(run)
            }
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        defer {
            stack.removeLast()
            if stack.isEmpty { rootClosed = true }
        }
        switch name {
        case "Text":
            textStyle = nil
            closeParagraph(depth: stack.count, implicit: true)
        case "Paragraph":
            if inNoteOrSummary {
                appendInner()
            } else {
                closeParagraph(depth: stack.count, implicit: false)
            }
        case "ScriptNote":
            if !innerText.isEmpty { appendInner() }
            let text = (noteParagraphs ?? []).joined(separator: "\n").trimmingSpaces()
            noteParagraphs = nil
            let element = Element(type: noteIsBoneyard ? .boneyard : .comment, text: text)
            if noteInsideParagraph, !open.isEmpty {
                open[open.count - 1].notes.append(element)
            } else if !text.isEmpty {
                trailingNotes.append(element)
            }
        case "Summary":
            if let s = summaryParagraphs {
                if !open.isEmpty { open[open.count - 1].summary.append(contentsOf: s) }
                summaryParagraphs = nil
            }
        case "DualDialogue":
            dualDepth = max(0, dualDepth - 1)
        default:
            break
        }
    }

    /// Ends the paragraph opened at `depth`, if one is (an implicit one only for a stray `<Text>`).
    private func closeParagraph(depth: Int, implicit: Bool) {
        guard let last = open.last, last.depth == depth, last.implicit == implicit else { return }
        open.removeLast()
        if last.isTitle {
            if !(last.flushed && last.runs.isEmpty) { titleParagraphs.append(last) }
        } else {
            emit(last)
        }
    }

    /// A note's or summary's paragraph text, collected into the note or summary.
    private func appendInner() {
        if noteParagraphs != nil { noteParagraphs!.append(innerText) } else { summaryParagraphs?.append(innerText) }
        innerText = ""
    }

    /// Emits what `p` holds so far (before a nested paragraph) and keeps it open for the rest.
    private func flush(_ p: inout Paragraph) {
        if p.isTitle {
            if !p.runs.isEmpty { titleParagraphs.append(p) }
        } else {
            emit(p)
        }
        p.runs = []
        p.notes = []
        p.summary = []
        p.startsNewPage = false
        p.flushed = true
    }

    static let actionTypes: Set<String> = ["Action", "General", "Shot", "Cast List", ""]

    private func emit(_ p: Paragraph) {
        if p.startsNewPage { elements.append(Element(type: .pageBreak, text: "")) }
        let text = p.runs.map(Emphasis.markup).joined()
        let trimmed = text.trimmingSpaces()
        if !trimmed.isEmpty {
            var element: Element
            switch p.type {
            case "Scene Heading":
                element = Element(type: .sceneHeading, text: trimmed, sceneNumber: p.number)
            case "Character":
                let cue = CharacterCue(parsing: Substring(trimmed))
                element = Element(type: .character, text: trimmed, name: cue?.name ?? trimmed, extension: cue?.extension)
                if dualDepth > 0 {
                    dualCharacters += 1
                    if dualCharacters == 2 { element.dual = true }
                }
            case "Dialogue":
                element = Element(type: .dialogue, text: trimmed)
            case "Parenthetical":
                element = Element(type: .parenthetical, text: trimmed)
            case "Transition":
                element = Element(type: .transition, text: trimmed)
            case "Lyrics":
                element = Element(type: .lyrics, text: trimmed)
            case "New Act":
                element = Element(type: .sectionHeading, text: trimmed, level: 2)
            case "End of Act":
                element = Element(type: .centered, text: trimmed)
            case "Section":
                element = Element(type: .sectionHeading, text: trimmed, level: max(1, p.level ?? 1))
            case "Synopsis":
                element = Element(type: .synopsis, text: trimmed)
            default:  // Action, General, Shot, Cast List, stray text and unknown types
                if p.implicit {
                    warnings.add(.textOutsideParagraph, "text outside any paragraph was read as action", line: p.line)
                } else if !Self.actionTypes.contains(p.type) {
                    warnings.add(.unknownParagraphType, "paragraph type '\(p.type)' is not known; read as action",
                                 line: p.line)
                }
                let keep = text.trimmingTrailingSpaces()
                element = Element(type: p.alignment == "Center" ? .centered : .action,
                                  text: p.alignment == "Center" ? trimmed : keep)
            }
            elements.append(element)
        }
        let summary = p.summary.joined(separator: "\n").trimmingSpaces()
        if !summary.isEmpty { elements.append(Element(type: .synopsis, text: summary)) }
        elements.append(contentsOf: p.notes)
    }

    /// Title-page paragraphs grouped by empty paragraphs; see the format documentation.
    func titlePage() -> [TitlePageEntry] {
        var groups: [[Paragraph]] = []
        var current: [Paragraph] = []
        for p in titleParagraphs {
            let text = p.runs.map(Emphasis.markup).joined().trimmingSpaces()
            if text.isEmpty && p.titleKey == nil {
                if !current.isEmpty { groups.append(current); current = [] }
            } else {
                if p.titleKey != nil && !current.isEmpty { groups.append(current); current = [] }
                current.append(p)
            }
        }
        if !current.isEmpty { groups.append(current) }
        var entries: [TitlePageEntry] = []
        var previousKey = ""
        for (i, group) in groups.enumerated() {
            let values = group.map { $0.runs.map(Emphasis.markup).joined().trimmingSpaces() }.filter { !$0.isEmpty }
            let key: String
            if let explicit = group[0].titleKey {
                key = explicit
            } else if i == 0 {
                key = "Title"
            } else if values.count == 1, Self.isCredit(values[0]) {
                key = "Credit"
            } else if previousKey == "Credit" {
                key = "Author"
            } else if group[0].alignment == "Center" {
                key = "Notes"
            } else {
                key = "Contact"
            }
            previousKey = key
            entries.append(TitlePageEntry(key: key, values: values))
        }
        return entries
    }

    static func isCredit(_ s: String) -> Bool {
        let l = Emphasis.strip(s).lowercased().trimmingSpaces()
        return l == "by" || l.hasSuffix(" by") || l == "written by"
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self[...]
        while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" { s = s.dropLast() }
        var t = s
        while let f = t.first, f == "\n" || f == "\r" { t = t.dropFirst() }
        return String(t)
    }
}
