import Foundation
import Testing
@testable import Screenplay

@Suite("JSON output and format detection")
struct JSONAndDetectionTests {
    @Test func jsonDecodesBackToTheDocument() throws {
        let doc = try ScreenplayReader.read(try fixture("night-ferry.fountain"), fileName: "night-ferry.fountain")
        let json = DocumentJSON.encode(doc)
        let decoded = try JSONDecoder().decode(ScreenplayDocument.self, from: Data(json.utf8))
        #expect(decoded == doc)
        let compact = DocumentJSON.encode(doc, pretty: false)
        #expect(try JSONDecoder().decode(ScreenplayDocument.self, from: Data(compact.utf8)) == doc)
    }

    @Test func jsonKeyOrderAndOptionalFields() {
        let doc = ScreenplayDocument(format: .fountain, titlePage: [TitlePageEntry(key: "Title", values: ["A \"B\""])], elements: [
            Element(type: .action, text: "x\ty\u{1}", chapterIndex: 0, orderIndex: 1),
            Element(type: .character, text: "BOB", chapterIndex: 0, orderIndex: 2, name: "BOB", extension: "V.O.", dual: true),
        ])
        let json = DocumentJSON.encode(doc, pretty: false)
        #expect(json == #"{"format": "fountain","titlePage": [{"key": "Title", "values": ["A \"B\""]}],"elements": [{"type": "action", "text": "x\ty\u0001", "chapterIndex": 0, "orderIndex": 1},{"type": "character", "text": "BOB", "chapterIndex": 0, "orderIndex": 2, "name": "BOB", "extension": "V.O.", "dual": true}]}"#)
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
