import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Screenplay

/// Final Draft's real structure: dual dialogue as a `<DualDialogue>` inside a `<Paragraph>` of the
/// `<Content>` (with `Type="General"` or no type), next to the furniture real exports carry
/// (`ElementSettings`, `HeaderAndFooter`, `PageLayout`, `SmartType`, styled `Text` runs).
@Suite("FDX nesting: nothing under Content is dropped", .timeLimit(.minutes(1)))
struct FDXNestingTests {
    func fdx(_ content: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<FinalDraft DocumentType=\"Script\" Version=\"5\"><Content>\(content)</Content></FinalDraft>"
    }

    /// The fixture's elements, worked out by hand from the file.
    @Test func finalDraftExportKeepsBothSpeakersOfDualDialogue() throws {
        let doc = try ScreenplayReader.read(try fixture("lighthouse-export.fdx"), fileName: "lighthouse-export.fdx")
        let expected: [(ElementType, String, Bool?)] = [
            (.sceneHeading, "EXT. LIGHTHOUSE GALLERY - NIGHT", nil),
            (.action, "Wind. The lamp turns above ODILE (60s) and her grandson TEO (12).", nil),
            (.character, "ODILE", nil),
            (.dialogue, "Count the flashes with me.", nil),
            (.character, "ODILE", nil),
            (.dialogue, "One, two, three...", nil),
            (.character, "TEO", true),
            (.parenthetical, "(at the same time)", nil),
            (.dialogue, "One, two, *four!*", nil),
            (.action, "She laughs.", nil),
            (.sceneHeading, "INT. LAMP ROOM - CONTINUOUS", nil),
            (.character, "TEO (O.S.)", nil),
            (.dialogue, "Grandma, the glass is cracked.", nil),
            (.character, "ODILE", true),
            (.dialogue, "Don't touch it!", nil),
            (.transition, "CUT TO:", nil),
        ]
        #expect(doc.elements.count == expected.count)
        for (element, (type, text, dual)) in zip(doc.elements, expected) {
            #expect(element.type == type)
            #expect(element.text == text)
            #expect(element.dual == dual, "\(text)")
        }
        #expect(doc.elements.filter { $0.type == .dialogue }.count == 5)
        #expect(doc.elements[11].name == "TEO" && doc.elements[11].extension == "O.S.")
        #expect(doc.titlePage == [TitlePageEntry(key: "Title", values: ["THE KEEPER'S COUNT"]),
                                  TitlePageEntry(key: "Credit", values: ["Written by"]),
                                  TitlePageEntry(key: "Author", values: ["Ines Marlowe"])])
        #expect(doc.warnings.isEmpty, "\(doc.warnings)")
        // Header and footer paragraphs are page furniture, not script.
        #expect(!doc.elements.contains { $0.text == "DRAFT" || $0.text == "." })
    }

    /// An independent reading of the fixture: every paragraph under the body's Content that holds
    /// text of its own, collected by a separate walk of the XML, is an element, in order.
    @Test func everyParagraphOfTheFixtureIsAnElementInOrder() throws {
        let bytes = try fixture("lighthouse-export.fdx")
        let oracle = LeafParagraphTexts.read(Data(bytes))
        #expect(oracle.count == 16)
        let doc = try FDXParser().parse(String(decoding: bytes, as: UTF8.self))
        #expect(doc.elements.map(\.plainText) == oracle)
    }

    @Test func typelessWrapperAndGeneralWrapperBothWork() throws {
        for wrapper in ["<Paragraph>", "<Paragraph Type=\"General\">", "<Paragraph Type=\"General\" StartsNewPage=\"No\">"] {
            let doc = try FDXParser().parse(fdx("""
                \(wrapper)<Text></Text><DualDialogue>\
                <Paragraph Type="Character"><Text>A</Text></Paragraph><Paragraph Type="Dialogue"><Text>left</Text></Paragraph>\
                <Paragraph Type="Character"><Text>B</Text></Paragraph><Paragraph Type="Dialogue"><Text>right</Text></Paragraph>\
                </DualDialogue></Paragraph>
                """))
            #expect(doc.elements.map(\.text) == ["A", "left", "B", "right"], "\(wrapper)")
            #expect(doc.elements.map(\.dual) == [nil, nil, true, nil])
            #expect(doc.warnings.isEmpty)
        }
    }

    @Test func wrapperPageBreakComesBeforeThePair() throws {
        let doc = try FDXParser().parse(fdx("""
            <Paragraph Type="General" StartsNewPage="Yes"><DualDialogue>\
            <Paragraph Type="Character"><Text>A</Text></Paragraph><Paragraph Type="Dialogue"><Text>x</Text></Paragraph>\
            <Paragraph Type="Character"><Text>B</Text></Paragraph><Paragraph Type="Dialogue"><Text>y</Text></Paragraph>\
            </DualDialogue></Paragraph>
            """))
        #expect(doc.elements.map(\.type) == [.pageBreak, .character, .dialogue, .character, .dialogue])
    }

    @Test func textAroundANestedPairStaysInOrder() throws {
        let doc = try FDXParser().parse(fdx("""
            <Paragraph Type="Action"><Text>before</Text><DualDialogue>\
            <Paragraph Type="Character"><Text>A</Text></Paragraph><Paragraph Type="Dialogue"><Text>x</Text></Paragraph>\
            <Paragraph Type="Character"><Text>B</Text></Paragraph><Paragraph Type="Dialogue"><Text>y</Text></Paragraph>\
            </DualDialogue><Text>after</Text></Paragraph>
            """))
        #expect(doc.elements.map(\.text) == ["before", "A", "x", "B", "y", "after"])
        #expect(doc.elements.first?.type == .action && doc.elements.last?.type == .action)
    }

    @Test func unknownParagraphTypeIsActionWithOneCountedWarning() throws {
        let doc = try FDXParser().parse(fdx("""
            <Paragraph Type="Mystery Element"><Text>odd one</Text></Paragraph>
            <Paragraph Type="Mystery Element"><Text>odd two</Text></Paragraph>
            """))
        #expect(doc.elements.map(\.type) == [.action, .action])
        #expect(doc.warnings.count == 1)
        #expect(doc.warnings.first?.code == .unknownParagraphType)
        #expect(doc.warnings.first?.count == 2)
        #expect(doc.warnings.first?.line == 2)
        #expect(doc.warnings.first?.message.contains("Mystery Element") == true)
    }

    @Test func paragraphNestedInAParagraphIsKeptAndReported() throws {
        let doc = try FDXParser().parse(fdx("""
            <Paragraph Type="Action"><Text>outer</Text><Paragraph Type="Dialogue"><Text>inner</Text></Paragraph></Paragraph>
            """))
        #expect(doc.elements.map(\.text) == ["outer", "inner"])
        #expect(doc.elements.map(\.type) == [.action, .dialogue])
        #expect(doc.warnings.map(\.code) == [.unexpectedNesting])
    }

    @Test func paragraphInAnUnknownWrapperAndStrayTextAreKeptAndReported() throws {
        let doc = try FDXParser().parse(fdx("""
            <Folder><Paragraph Type="Action"><Text>wrapped</Text></Paragraph></Folder><Text>stray</Text>
            """))
        #expect(doc.elements.map(\.text) == ["wrapped", "stray"])
        #expect(Set(doc.warnings.map(\.code)) == [.unexpectedNesting, .textOutsideParagraph])
    }

    @Test func warningsAppearInTheElementJSON() throws {
        let doc = try FDXParser().parse(fdx("<Paragraph Type=\"Mystery\"><Text>x</Text></Paragraph>"))
        let json = DocumentJSON.encode(doc)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let warnings = try #require(object["warnings"] as? [[String: Any]])
        #expect(warnings.count == 1)
        #expect(warnings.first?["code"] as? String == "unknownParagraphType")
        #expect(warnings.first?["count"] as? Int == 1)
        #expect(try JSONDecoder().decode(ScreenplayDocument.self, from: Data(json.utf8)) == doc)
        // A clean document has no warnings key at all.
        let clean = try FDXParser().parse(fdx("<Paragraph Type=\"Action\"><Text>x</Text></Paragraph>"))
        let cleanObject = try #require(try JSONSerialization.jsonObject(with: Data(DocumentJSON.encode(clean).utf8)) as? [String: Any])
        #expect(cleanObject["warnings"] == nil)
    }

    /// Property: random trees of paragraphs, dual-dialogue blocks, unknown wrappers and stray
    /// text, each word unique: every word comes out exactly once.
    @Test func randomNestingNeverDropsOrDuplicatesText() throws {
        var rng = SplitMix(seed: 0x5EED)
        for round in 0..<300 {
            var words = 0
            func word() -> String { words += 1; return " w\(words) " }
            func node(_ depth: Int) -> String {
                let types = ["Action", "Character", "Dialogue", "Parenthetical", "General", "Shot", "Scene Heading",
                             "Transition", "Lyrics", "Mystery", ""]
                switch depth > 4 ? 0 : rng.next() % 5 {
                case 0: return "<Text>\(word())</Text>"
                case 1:
                    let type = types[Int(rng.next() % UInt64(types.count))]
                    let inner = (0..<Int(1 + rng.next() % 3)).map { _ in node(depth + 1) }.joined()
                    return "<Paragraph Type=\"\(type)\">\(inner)</Paragraph>"
                case 2: return "<DualDialogue>" + (0..<Int(1 + rng.next() % 4)).map { _ in node(depth + 1) }.joined() + "</DualDialogue>"
                case 3: return "<Wrapper>" + node(depth + 1) + "</Wrapper>"
                default:
                    return "<Paragraph><Text>\(word())</Text>" + node(depth + 1) + "<Text>\(word())</Text></Paragraph>"
                }
            }
            let content = (0..<Int(1 + rng.next() % 6)).map { _ in node(0) }.joined()
            let doc = try FDXParser().parse(fdx(content))
            var seen: [String: Int] = [:]
            for element in doc.elements {
                for token in element.plainText.split(whereSeparator: { $0 == " " || $0 == "\n" }) { seen[String(token), default: 0] += 1 }
            }
            for n in 1...max(words, 1) where words > 0 {
                #expect(seen["w\(n)"] == 1, "round \(round): w\(n) in \(content)")
            }
        }
    }
}

/// The concatenated text of every `<Paragraph>` under `FinalDraft/Content` that has `<Text>`
/// children of its own, in document order: a reading of the XML that shares no code with the parser.
final class LeafParagraphTexts: NSObject, XMLParserDelegate {
    private var path: [String] = []
    private var buffers: [String] = []
    private var texts: [String] = []

    static func read(_ data: Data) -> [String] {
        let parser = XMLParser(data: data)
        let reader = LeafParagraphTexts()
        parser.delegate = reader
        _ = parser.parse()
        return reader.texts
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        path.append(name)
        if name == "Paragraph", path.count >= 3, path[1] == "Content" { buffers.append("") }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if path.last == "Text", path.count >= 3, path[1] == "Content", !buffers.isEmpty { buffers[buffers.count - 1] += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "Paragraph", path.count >= 3, path[1] == "Content" {
            let text = buffers.removeLast().trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { texts.append(text) }
        }
        path.removeLast()
    }
}
