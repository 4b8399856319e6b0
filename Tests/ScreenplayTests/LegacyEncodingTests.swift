import Foundation
import Testing
@testable import Screenplay

/// Fountain files written by Windows tools in Windows-1252 (or Latin-1) are read, with a warning.
@Suite("Windows-1252 and Latin-1 input", .timeLimit(.minutes(1)))
struct LegacyEncodingTests {
    /// "INT. CAFÉ - DAY", a cue, and a line with curly quotes, an en dash and "…" as Notepad
    /// writes them in Windows-1252 (bytes typed from the code page table, not produced by the code).
    let windows1252: [UInt8] = Array("INT. CAF".utf8) + [0xC9] + Array(" - DAY\r\n\r\nZO".utf8) + [0xC9] + Array("\r\n".utf8)
        + [0x93] + Array("Voil".utf8) + [0xE0, 0x94] + Array(" ".utf8) + [0x96] + Array(" d".utf8) + [0xE9, 0x6A, 0xE0]
        + Array(" vu".utf8) + [0x85] + Array("\r\n".utf8)

    @Test func windows1252FountainIsReadWithAWarning() throws {
        let doc = try ScreenplayReader.read(windows1252, fileName: "cafe.fountain")
        #expect(doc.elements.map(\.text) == ["INT. CAFÉ - DAY", "ZOÉ", "\u{201C}Voilà\u{201D} \u{2013} déjà vu\u{2026}"])
        #expect(doc.elements.map(\.type) == [.sceneHeading, .character, .dialogue])
        #expect(doc.warnings.map(\.code) == [.legacyEncoding])
        #expect(doc.warnings.first?.message.contains("first non-UTF-8 byte at 8") == true)
    }

    @Test func latin1BytesAreTheirOwnCodePoints() throws {
        // Latin-1 and Windows-1252 agree from 0xA0 up: "Siobhán ñ ß ÿ".
        let bytes = Array("Siobh".utf8) + [0xE1] + Array("n ".utf8) + [0xF1, 0x20, 0xDF, 0x20, 0xFF]
        let decoded = try InputDecoder.decodeWithWarnings(bytes)
        #expect(decoded.text == "Siobhán ñ ß ÿ")
        #expect(decoded.warnings.count == 1)
    }

    @Test func utf8InputHasNoWarning() throws {
        let doc = try ScreenplayReader.read(Array("INT. CAFÉ - DAY\n\nZOÉ\nVoilà.\n".utf8), fileName: "x.fountain")
        #expect(doc.warnings.isEmpty)
        #expect(doc.elements.first?.text == "INT. CAFÉ - DAY")
    }

    /// An FDX file in Latin-1 that says so in its XML declaration reads as the same characters.
    @Test func latin1FDXWithItsDeclarationIsRead() throws {
        let xml = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<FinalDraft><Content><Paragraph Type=\"Action\"><Text>Caf"
        let bytes = Array(xml.utf8) + [0xE9] + Array("</Text></Paragraph></Content></FinalDraft>".utf8)
        let doc = try ScreenplayReader.read(bytes, fileName: "x.fdx")
        #expect(doc.elements.map(\.text) == ["Café"])
        #expect(doc.warnings.map(\.code) == [.legacyEncoding])
    }
}
