import Foundation
import Testing
@testable import BookCatalog

@Suite("Bytes that are not UTF-8", .timeLimit(.minutes(1)))
struct ExportTextDecoderTests {
    func decode(_ bytes: [UInt8]) throws(CSVError) -> (text: String, repairs: [TextRepair]) {
        try ExportTextDecoder.decode(bytes[...])
    }

    @Test func marc8MarksComposeOntoTheFollowingLetter() throws {
        let padding = String(repeating: "padding so the marks stay a few bytes among many ", count: 5)
        let input = bytes(["Title\nCort", 0xE2, "azar, ", 0xE9, "Capek, G", 0xE8, "unter, Fran", 0xF0, "coise, Espa", 0xE4,
                           "na, ", 0xF2, 0xE3, "a, ", 0xE1, "a la ", 0xE5, "o ", 0xE6, "g ", 0xE7, "z ", 0xEA, "u ", .text(padding)])
        let (text, repairs) = try decode(input)
        #expect(text.hasPrefix("Title\nCortázar, Čapek, Günter, Françoise, España, ậ, à la ō ğ ż ů "))
        #expect(text == text.precomposedStringWithCanonicalMapping) // composed, not letter + mark
        #expect(repairs == [TextRepair(line: 2, reading: .marc8, bytes: 12)])
    }

    @Test func aStrayLatin1ByteMakesEveryStrayByteLatin1() throws {
        // "é" before a space composes with nothing: the file is Latin-1, so "Misérables" is not "Misřables".
        let input = bytes(["Title,Author\nCaf", 0xE9, " Society,Jean Dupont\nLes Mis", 0xE9, "rables,Victor Hugo\n\"Quotes\",",
                           0x93, "Smart", 0x94, "\n"])
        let (text, repairs) = try decode(input)
        #expect(text == "Title,Author\nCafé Society,Jean Dupont\nLes Misérables,Victor Hugo\n\"Quotes\",“Smart”\n")
        #expect(repairs == [TextRepair(line: 2, reading: .latin1, bytes: 1), TextRepair(line: 3, reading: .latin1, bytes: 1),
                            TextRepair(line: 4, reading: .latin1, bytes: 2)])
    }

    @Test func theRowsWithRepairedBytesAreNotedInTheExport() throws {
        let input = bytes(["Title,Authors,ISBN/UID,Read Status,Tags\nCaf", 0xE9, " Society,Jean Dupont,,read,\nPlain,Some One,,read,\n",
                           "\"Two\nlines\",Other One,,read,\"caf", 0xE9, "\"\n"])
        let export = try BookExport.read(input)
        #expect(export.rows.map(\.title) == ["Café Society", "Plain", "Two lines"]) // a line break in a title is a space
        #expect(export.rows[2].user.shelves == ["café"])
        // The repair on line 5 belongs to the row that starts on line 4.
        #expect(export.notes == [.textRepaired(line: 2, reading: .latin1), .textRepaired(line: 4, reading: .latin1)])
        #expect(BookExport.repairNotes([TextRepair(line: 1, reading: .marc8, bytes: 1)], rowLines: [2, 3])
            == [.textRepaired(line: 1, reading: .marc8)])
    }

    @Test func validUTF8IsUntouched() throws {
        let text = "Title\nCortázar – “quoted” — 桜坂洋 \u{1F4DA}\r\nnext"
        let decoded = try decode(Array(text.utf8))
        #expect(decoded.text == text)
        #expect(decoded.repairs.isEmpty)
    }

    @Test func repairsCountLinesAsTheParserDoes() throws {
        // CRLF counts once, a lone CR once.
        let input = bytes(["a\r\nb\rc\n", 0xE9, " end, and more text to keep the share small"])
        #expect(try decode(input).repairs == [TextRepair(line: 4, reading: .latin1, bytes: 1)])
    }

    @Test func mostlyNotTextIsStillRefused() {
        // One byte in ten is not UTF-8 (and no NUL): not text in any encoding this reads.
        let dense = text(count: 400) { $0 % 10 == 3 }
        #expect(throws: CSVError.invalidUTF8(offset: 3)) { try decode(dense) }
        #expect(throws: ExportReadError.csv(.invalidUTF8(offset: 3))) { try BookExport.read(dense) }
        // Just under one in twenty is read.
        let few = text(count: 400) { $0 % 21 == 3 }
        #expect(throws: Never.self) { try decode(few) }
    }

    /// `count` letters, 0xFF where `isBad` holds.
    func text(count: Int, isBad: (Int) -> Bool) -> [UInt8] {
        (0..<count).map { (index: Int) -> UInt8 in isBad(index) ? 0xFF : UInt8(0x61 + index % 26) }
    }

    @Test func marksThatFindNoLetterAreLatin1() throws {
        // 0xE2 at the very end, then before a digit: no letter to carry it.
        let input = bytes(["Title\nprice 5", 0xE2, "9 and a long enough line of text", 0xE2])
        #expect(try decode(input).text == "Title\nprice 5â9 and a long enough line of textâ")
    }

    @Test func latin1CoversEveryByte() {
        for byte in UInt8(0x80)...UInt8(0xFF) { _ = ExportTextDecoder.latin1(byte) }
        #expect(ExportTextDecoder.latin1(0x80) == "€")
        #expect(ExportTextDecoder.latin1(0x81) == "\u{81}")
        #expect(ExportTextDecoder.latin1(0xE9) == "é")
    }
}

/// A piece of a test file: text as UTF-8, or one raw byte.
enum BytePart: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case text(String)
    case byte(UInt8)
    init(stringLiteral value: String) { self = .text(value) }
    init(integerLiteral value: UInt8) { self = .byte(value) }
}

/// The pieces joined.
func bytes(_ parts: [BytePart]) -> [UInt8] {
    parts.flatMap { part -> [UInt8] in
        switch part {
        case let .text(text): Array(text.utf8)
        case let .byte(byte): [byte]
        }
    }
}
