import Foundation
import Testing
@testable import Screenplay

@Suite("JSON output and format detection", .timeLimit(.minutes(2)))
struct JSONAndDetectionTests {
    @Test func jsonDecodesBackToTheDocument() throws {
        let doc = try ScreenplayReader.read(try fixture("night-ferry.fountain"), fileName: "night-ferry.fountain")
        let json = DocumentJSON.encode(doc)
        let decoded = try JSONDecoder().decode(ScreenplayDocument.self, from: Data(json.utf8))
        #expect(decoded == doc)
        let compact = DocumentJSON.encode(doc, pretty: false)
        #expect(try JSONDecoder().decode(ScreenplayDocument.self, from: Data(compact.utf8)) == doc)
    }

    @Test func jsonKeyOrderAndOptionalFields() throws {
        let doc = ScreenplayDocument(format: .fountain, titlePage: [TitlePageEntry(key: "Title", values: ["A \"B\""])], elements: [
            Element(type: .action, text: "x\ty\u{1}", chapterIndex: 0, orderIndex: 1),
            Element(type: .character, text: "BOB", chapterIndex: 0, orderIndex: 2, name: "BOB", extension: "V.O.", dual: true),
        ])
        // The oracle is the documented contract (docs and ARCHITECTURE.md: top-level keys format,
        // titlePage, elements; element keys type, text, chapterIndex, orderIndex, then the optional
        // ones only when set), checked with Foundation's own JSON parser rather than against the
        // encoder's spacing.
        for pretty in [false, true] {
            let json = DocumentJSON.encode(doc, pretty: pretty)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["format", "titlePage", "elements"])
            #expect(object["format"] as? String == "fountain")
            let title = try #require(object["titlePage"] as? [[String: Any]])
            #expect(title.count == 1 && title[0]["key"] as? String == "Title" && title[0]["values"] as? [String] == ["A \"B\""])
            let elements = try #require(object["elements"] as? [[String: Any]])
            #expect(elements.count == 2)
            #expect(Set(elements[0].keys) == ["type", "text", "chapterIndex", "orderIndex"], "unset optionals are left out")
            #expect(elements[0]["type"] as? String == "action")
            #expect(elements[0]["text"] as? String == "x\ty\u{1}", "tab and control character survive")
            #expect(elements[0]["chapterIndex"] as? Int == 0 && elements[0]["orderIndex"] as? Int == 1)
            #expect(Set(elements[1].keys) == ["type", "text", "chapterIndex", "orderIndex", "name", "extension", "dual"])
            #expect(elements[1]["name"] as? String == "BOB" && elements[1]["extension"] as? String == "V.O.")
            #expect(elements[1]["dual"] as? Bool == true)
            // Key order, read off the text (no string value here contains a quote followed by a colon).
            #expect(Self.keys(in: json) == ["format", "titlePage", "key", "values", "elements",
                                            "type", "text", "chapterIndex", "orderIndex",
                                            "type", "text", "chapterIndex", "orderIndex", "name", "extension", "dual"])
            // JSON text may not hold raw control characters (RFC 8259 §7).
            #expect(!json.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != " " })
        }
    }

    /// Every object key of `json` in order of appearance: a quoted string followed by a colon.
    static func keys(in json: String) -> [String] {
        let regex = try! Regex(#""([A-Za-z]+)"\s*:"#)
        return json.matches(of: regex).compactMap { $0.output[1].substring.map(String.init) }
    }

    @Test(arguments: [("a.fountain", DocumentFormat.fountain), ("a.SPMD", .fountain), ("a.txt", .fountain),
                      ("a.fdx", .fdx), ("a.md", .markdown), ("a.Markdown", .markdown)])
    func byExtension(_ name: String, _ format: DocumentFormat) {
        #expect(FormatDetector.format(forFileName: name) == format)
    }

    @Test func unknownExtension() {
        #expect(FormatDetector.format(forFileName: "script") == nil)
        #expect(FormatDetector.format(forFileName: "dir.d/script") == nil)
        #expect(FormatDetector.format(forFileName: "a.docx") == nil)
    }

    @Test func sniffing() throws {
        #expect(FormatDetector.sniff("<?xml version=\"1.0\"?><FinalDraft/>") == .fdx)
        #expect(FormatDetector.sniff("  <FinalDraft>") == .fdx)
        #expect(FormatDetector.sniff("# Notes\n\n- one\n- two\n\n```\ncode\n```\n\nSee [link](http://x).") == .markdown)
        #expect(FormatDetector.sniff("INT. HOUSE - DAY\n\nBOB\nHi.\n\nCUT TO:\n") == .fountain)
        let fountainText = String(decoding: try fixture("night-ferry.fountain"), as: UTF8.self)
        #expect(FormatDetector.sniff(fountainText) == .fountain)
        let markdownText = String(decoding: try fixture("treatment.md"), as: UTF8.self)
        #expect(FormatDetector.sniff(markdownText) == .markdown)
    }

    @Test func readerUsesExplicitFormatOverExtension() throws {
        let doc = try ScreenplayReader.read(Array("# Heading\n\nText".utf8), fileName: "x.fountain", format: .markdown)
        #expect(doc.format == .markdown)
        #expect(doc.elements.first?.level == 1)
    }
}
