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
        let parser = XMLParser(data: Data(text.utf8))
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
                                     elements: delegate.elements + delegate.trailingNotes)
        doc.renumber()
        return doc
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
    }

    var root: String?
    var rootClosed = false
    var failure: ScreenplayError?
    var elements: [Element] = []
    var trailingNotes: [Element] = []
    var titleParagraphs: [Paragraph] = []

    private var stack: [String] = []
    private var paragraph: Paragraph?         // current script or title-page paragraph
    private var paragraphIsTitle = false
    private var paragraphDepth = 0
    private var noteParagraphs: [String]?      // inside <ScriptNote>
    private var noteIsBoneyard = false
    private var noteInsideParagraph = false
    private var summaryParagraphs: [String]?   // inside <Summary>
    private var innerText = ""                 // a <Paragraph> nested in a note or summary
    private var textStyle: (bold: Bool, italic: Bool, underline: Bool)?
    private var dualDepth = 0
    private var dualCharacters = 0

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        if root == nil { root = name }
        stack.append(name)
        if stack.count > FDXParser.maxDepth {
            failure = .xmlTooDeep(limit: FDXParser.maxDepth)
            parser.abortParsing()
            return
        }
        switch name {
        case "Paragraph":
            if noteParagraphs != nil || summaryParagraphs != nil {
                innerText = ""
            } else if paragraph == nil {
                let inTitle = stack.contains("TitlePage")
                let parent = stack.count >= 2 ? stack[stack.count - 2] : ""
                let inContent = parent == "Content" || parent == "DualDialogue"
                guard inContent else { return }
                var p = Paragraph()
                p.type = attributes["Type"] ?? ""
                p.number = attributes["Number"].flatMap { $0.isEmpty ? nil : $0 }
                p.alignment = attributes["Alignment"]
                p.startsNewPage = attributes["StartsNewPage"] == "Yes"
                p.titleKey = attributes["TitleKey"]
                p.level = attributes["Level"].flatMap { Int($0) }
                paragraph = p
                paragraphIsTitle = inTitle
                paragraphDepth = stack.count
            }
        case "Text":
            let style = attributes["Style"] ?? ""
            let parts = style.split(separator: "+")
            textStyle = (parts.contains("Bold"), parts.contains("Italic"), parts.contains("Underline"))
        case "ScriptNote":
            noteParagraphs = []
            noteIsBoneyard = attributes["Kind"] == "Boneyard"
            noteInsideParagraph = paragraph != nil
        case "Summary":
            if paragraph != nil { summaryParagraphs = [] }
        case "DualDialogue":
            dualDepth += 1
            dualCharacters = 0
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard let style = textStyle, stack.last == "Text" else { return }
        if noteParagraphs != nil || summaryParagraphs != nil {
            innerText += Emphasis.markup(Emphasis.Run(text: string, bold: style.bold, italic: style.italic,
                                                      underline: style.underline))
        } else if paragraph != nil {
            let run = Emphasis.Run(text: string, bold: style.bold, italic: style.italic, underline: style.underline)
            if let last = paragraph!.runs.last, last.bold == run.bold, last.italic == run.italic,
               last.underline == run.underline {
                paragraph!.runs[paragraph!.runs.count - 1].text += string
            } else {
                paragraph!.runs.append(run)
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
        case "Paragraph":
            if noteParagraphs != nil {
                noteParagraphs!.append(innerText); innerText = ""
            } else if summaryParagraphs != nil {
                summaryParagraphs!.append(innerText); innerText = ""
            } else if let p = paragraph, stack.count == paragraphDepth {
                paragraph = nil
                if paragraphIsTitle { titleParagraphs.append(p) } else { emit(p) }
            }
        case "ScriptNote":
            let text = (noteParagraphs ?? []).joined(separator: "\n").trimmingSpaces()
            noteParagraphs = nil
            let element = Element(type: noteIsBoneyard ? .boneyard : .comment, text: text)
            if noteInsideParagraph, paragraph != nil {
                paragraph!.notes.append(element)
            } else if !text.isEmpty {
                trailingNotes.append(element)
            }
        case "Summary":
            if let s = summaryParagraphs {
                paragraph?.summary.append(contentsOf: s)
                summaryParagraphs = nil
            }
        case "DualDialogue":
            dualDepth = max(0, dualDepth - 1)
        default:
            break
        }
    }

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
            default:  // Action, General, Shot, Cast List and unknown types
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
