import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Screenplay

/// The FDX writer's XML checked directly, with an XML walk of its own, against the shape of a real
/// Final Draft export (Fixtures/lighthouse-export.fdx, which also carries ElementSettings,
/// HeaderAndFooter, PageLayout, SmartType and Text runs with Font/Size/AdornmentStyle). A round
/// trip through FDXParser alone would pass with the same wrong shape in the parser and the writer.
@Suite("FDX writer shape", .timeLimit(.minutes(1)))
struct FDXWriterShapeTests {
    /// The body of a real export and of the writer's output of the same document have the same
    /// paragraphs, nesting, text runs and styles. Normalized: a typeless dual-dialogue wrapper is
    /// `General` (Final Draft writes both), `Style=""` is no style, empty runs are dropped, and
    /// attributes that only set page layout (SceneProperties, fonts, colours) are ignored.
    @Test func writerOutputHasTheShapeOfARealExport() throws {
        let bytes = try fixture("lighthouse-export.fdx")
        let real = try #require(XMLTree.parse(Data(bytes)))
        let document = try FDXParser().parse(String(decoding: bytes, as: UTF8.self))
        let written = try #require(XMLTree.parse(Data(FDXWriter().write(document).utf8)))

        #expect(written.name == "FinalDraft")
        #expect(written.attributes["DocumentType"] == real.attributes["DocumentType"])
        #expect(written.attributes["Version"] == real.attributes["Version"])
        let realBody = try #require(real.child("Content")).children.filter { $0.name == "Paragraph" }.map(Shape.init)
        let writtenBody = try #require(written.child("Content")).children.filter { $0.name == "Paragraph" }.map(Shape.init)
        #expect(realBody.count == 9, "9 top-level paragraphs in the export, two of them dual-dialogue wrappers")
        #expect(writtenBody == realBody)
    }

    /// Elements Final Draft has a direct form for, each checked in the written XML.
    @Test func elementsBecomeFinalDraftParagraphs() throws {
        let document = ScreenplayDocument(format: .fountain, titlePage: [TitlePageEntry(key: "Title", values: ["NIGHT FERRY"])], elements: [
            el(.sceneHeading, "INT. FERRY - NIGHT", 0, 1, scene: "12A"),
            el(.action, "Engines. **Loud** ones.", 0, 2),
            el(.pageBreak, "", 0, 3),
            el(.centered, "THE END", 0, 4),
            el(.character, "MAYA", 0, 5, name: "MAYA"),
            el(.dialogue, "Left.", 0, 6),
            el(.character, "JON", 0, 7, name: "JON", dual: true),
            el(.dialogue, "Right.", 0, 8),
        ])
        let root = try #require(XMLTree.parse(Data(FDXWriter().write(document).utf8)))
        let body = try #require(root.child("Content")).children.filter { $0.name == "Paragraph" }
        #expect(body.map { $0.attributes["Type"] } == ["Scene Heading", "Action", "Action", "General"])
        #expect(body[0].attributes["Number"] == "12A")
        // Text lives in <Text> runs; emphasis is a Style on its own run.
        #expect(body[1].children.map(\.name) == ["Text", "Text", "Text"])
        #expect(body[1].children.map(\.text) == ["Engines. ", "Loud", " ones."])
        #expect(body[1].children[1].attributes["Style"] == "Bold")
        // The page break is the next paragraph's StartsNewPage; centered text is Alignment="Center".
        #expect(body[2].attributes["StartsNewPage"] == "Yes" && body[2].attributes["Alignment"] == "Center")
        // Dual dialogue: General > DualDialogue > both speakers' paragraphs.
        let dual = try #require(body[3].child("DualDialogue"))
        #expect(dual.children.map { $0.attributes["Type"] } == ["Character", "Dialogue", "Character", "Dialogue"])
        #expect(dual.children.map { $0.children.map(\.text).joined() } == ["MAYA", "Left.", "JON", "Right."])
        // The title page is its own Content under TitlePage.
        let title = try #require(root.child("TitlePage")?.child("Content"))
        #expect(title.children.map { $0.children.map(\.text).joined() } == ["NIGHT FERRY"])
    }
}

/// A paragraph's shape: its type, its own text runs (text and style), and nested paragraphs.
struct Shape: Equatable, CustomStringConvertible {
    var type: String
    var runs: [String]
    var nested: [Shape]

    init(_ paragraph: XMLTree) {
        type = paragraph.attributes["Type"] ?? "General"
        runs = paragraph.children.filter { $0.name == "Text" && !$0.text.isEmpty }.map { run in
            let style = run.attributes["Style"] ?? ""
            return style.isEmpty ? run.text : "\(run.text)[\(style)]"
        }
        nested = paragraph.children.filter { $0.name == "DualDialogue" }
            .flatMap { $0.children.filter { $0.name == "Paragraph" }.map(Shape.init) }
    }

    var description: String { "\(type)\(runs)\(nested.isEmpty ? "" : "{\(nested)}")" }
}

/// A minimal XML tree read with Foundation's XMLParser (not FDXParser's reading).
final class XMLTree {
    let name: String
    let attributes: [String: String]
    var children: [XMLTree] = []
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    func child(_ name: String) -> XMLTree? { children.first { $0.name == name } }

    static func parse(_ data: Data) -> XMLTree? {
        let builder = Builder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        return parser.parse() ? builder.root : nil
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: XMLTree?
        var stack: [XMLTree] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            let node = XMLTree(name: elementName, attributes: attributeDict)
            if let parent = stack.last { parent.children.append(node) } else { root = node }
            stack.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            // Only the text of Text runs matters here; whitespace between elements is layout.
            if let current = stack.last, current.name == "Text" { current.text += string }
        }
    }
}

/// A fixture laid out as Final Draft saves a script (learned from public `.fdx` files, written for
/// this repository): body `Content`, then `ElementSettings` per paragraph type, then `TitlePage`
/// holding its `HeaderAndFooter` and its own `Content` of aligned paragraphs, empty ones between
/// the groups. The writer keeps the root's attributes and that order, and its output reads back
/// to the same document.
@Suite("FDX writer against a Final Draft-shaped title page", .timeLimit(.minutes(1)))
struct FDXTitlePageShapeTests {
    @Test func aSavedScriptWithATitlePageRoundTripsThroughTheWriter() throws {
        let bytes = try fixture("harbour-watch-export.fdx")
        let real = try #require(XMLTree.parse(Data(bytes)))
        #expect(real.children.map(\.name) == ["Content", "ElementSettings", "ElementSettings", "TitlePage"], "the fixture's own shape")
        let document = try FDXParser().parse(String(decoding: bytes, as: UTF8.self))
        #expect(document.titlePage == [
            TitlePageEntry(key: "Title", values: ["THE HARBOUR WATCH"]), TitlePageEntry(key: "Credit", values: ["Written by"]),
            TitlePageEntry(key: "Author", values: ["Ines Vallard"]), TitlePageEntry(key: "Contact", values: ["Pier Nine Pictures", "12 Quay Street"]),
        ], "the header's page number is not part of the title page")

        let text = FDXWriter().write(document)
        let written = try #require(XMLTree.parse(Data(text.utf8)))
        #expect(written.name == "FinalDraft")
        for attribute in ["DocumentType", "Template", "Version"] {
            #expect(written.attributes[attribute] == real.attributes[attribute], "\(attribute)")
        }
        #expect(written.children.map(\.name) == ["Content", "TitlePage"], "body first, then the title page, as Final Draft saves them")
        let body = { (root: XMLTree) in (root.child("Content")?.children ?? []).filter { $0.name == "Paragraph" }.map(Shape.init) }
        #expect(body(written) == body(real))
        // The title page's lines, in order, with the alignment Final Draft gives them.
        let lines = { (root: XMLTree) in
            (root.child("TitlePage")?.child("Content")?.children ?? []).compactMap { paragraph -> String? in
                let line = paragraph.children.filter { $0.name == "Text" }.map(\.text).joined()
                return line.isEmpty ? nil : "\(paragraph.attributes["Alignment"] ?? "?") \(line)"
            }
        }
        #expect(lines(written) == lines(real))
        #expect(lines(written).count == 5)

        let again = try FDXParser().parse(text)
        #expect(again.titlePage == document.titlePage)
        #expect(again.elements.map(\.type) == document.elements.map(\.type))
        #expect(again.elements.map(\.text) == document.elements.map(\.text))
    }
}
