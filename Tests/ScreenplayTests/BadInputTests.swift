import Foundation
import Testing
@testable import Screenplay

@Suite("Bad input", .timeLimit(.minutes(2)))
struct BadInputTests {
    func read(_ bytes: [UInt8], _ name: String? = nil, maxBytes: Int = ParseOptions.defaultMaxBytes) throws -> ScreenplayDocument {
        try ScreenplayReader.read(bytes, fileName: name, options: ParseOptions(maxBytes: maxBytes))
    }

    @Test func emptyAndWhitespaceOnly() {
        #expect(throws: ScreenplayError.empty) { try read([]) }
        #expect(throws: ScreenplayError.empty) { try read(Array(" \n\t\r\n".utf8)) }
        #expect(throws: ScreenplayError.empty) { try read([0xEF, 0xBB, 0xBF]) }
    }

    @Test func nulBytesAreBinary() {
        #expect(throws: ScreenplayError.binary(offset: 3)) { try read([0x41, 0x42, 0x43, 0x00, 0x44]) }
    }

    @Test func controlGarbageIsBinary() {
        let garbage = (0..<400).map { UInt8(1 + ($0 * 7) % 8) }
        #expect(throws: ScreenplayError.self) { try read(garbage) }
        // A few stray control bytes in a real script are tolerated.
        #expect(throws: Never.self) { try read(Array("INT. X - DAY\u{1}\n\nAction.\u{2}".utf8)) }
    }

    @Test func randomBinaryIsRejected() {
        var generator = SplitMix(seed: 42)
        let bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(throws: ScreenplayError.self) { try read(bytes) }
    }

    /// A damaged UTF-8 file (valid multi-byte sequences and invalid bytes) is refused, naming the
    /// first bad byte; "é" (C3 A9) makes each input UTF-8 in intent.
    @Test func damagedUTF8ReportsOffset() {
        let e: [UInt8] = [0xC3, 0xA9]
        #expect(throws: ScreenplayError.invalidUTF8(offset: 4)) { try read(e + [0x41, 0x42, 0xC3, 0x28]) }
        #expect(throws: ScreenplayError.invalidUTF8(offset: 3)) { try read(e + [0x41, 0xED, 0xA0, 0x80]) } // surrogate
        #expect(throws: ScreenplayError.invalidUTF8(offset: 3)) { try read(e + [0x41, 0xC0, 0x80]) }       // overlong
        #expect(throws: ScreenplayError.invalidUTF8(offset: 3)) { try read(e + [0x41, 0xE2, 0x82]) }       // truncated
        #expect(throws: ScreenplayError.invalidUTF8(offset: 3)) { try read([0xEF, 0xBB, 0xBF, 0xE9]) }     // BOM says UTF-8
    }

    @Test func utf16WithBOMIsDecoded() throws {
        let text = "JOSÉ\nHola.\n"
        var le: [UInt8] = [0xFF, 0xFE]
        var be: [UInt8] = [0xFE, 0xFF]
        for unit in text.utf16 {
            le += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            be += [UInt8(unit >> 8), UInt8(unit & 0xFF)]
        }
        for bytes in [le, be] {
            let doc = try read(bytes, "a.fountain")
            #expect(doc.elements.map(\.type) == [.character, .dialogue])
            #expect(doc.elements.first?.name == "JOSÉ")
        }
    }

    @Test func invalidUTF16AndUTF32() {
        #expect(throws: ScreenplayError.invalidUTF16) { try read([0xFF, 0xFE, 0x41]) }
        #expect(throws: ScreenplayError.invalidUTF16) { try read([0xFF, 0xFE, 0x00, 0xD8, 0x41, 0x00]) } // lone surrogate
        #expect(throws: ScreenplayError.unsupportedEncoding("UTF-32")) { try read([0xFF, 0xFE, 0x00, 0x00, 0x41, 0, 0, 0]) }
    }

    @Test func sizeLimit() {
        let bytes = Array(String(repeating: "Action line.\n", count: 100).utf8)
        #expect(throws: ScreenplayError.tooLarge(size: bytes.count, limit: 100)) { try read(bytes, maxBytes: 100) }
        #expect(throws: Never.self) { try read(bytes, maxBytes: bytes.count) }
    }

    @Test func unterminatedBlocksAreBestEffort() throws {
        let boneyard = try read(Array("A.\n\n/* open".utf8), "x.fountain")
        #expect(boneyard.elements.map(\.type) == [.action, .boneyard])
        let note = try read(Array("A [[open".utf8), "x.fountain")
        #expect(note.elements.map(\.text) == ["A [[open"])
    }

    @Test func xmlAttacksThroughTheReader() {
        let laughs = Array("<?xml version=\"1.0\"?><!DOCTYPE a [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]><FinalDraft><Content><Paragraph><Text>&b;</Text></Paragraph></Content></FinalDraft>".utf8)
        #expect(throws: ScreenplayError.xmlDoctypeNotAllowed) { try read(laughs, "a.fdx") }
        let xxe = Array("<?xml version=\"1.0\"?>\n<!DOCTYPE FinalDraft [ <!ENTITY xxe SYSTEM \"file:///etc/passwd\"> ]>\n<FinalDraft><Content><Paragraph><Text>&xxe;</Text></Paragraph></Content></FinalDraft>".utf8)
        #expect(throws: ScreenplayError.xmlDoctypeNotAllowed) { try read(xxe, "a.fdx") }
        #expect(throws: ScreenplayError.self) { try read(Array("<FinalDraft><Content><Paragraph".utf8), "a.fdx") }
        #expect(throws: ScreenplayError.self) { try read(Array("not xml at all".utf8), "a.fdx") }
    }

    @Test func errorsHaveOneLineDescriptions() {
        let errors: [ScreenplayError] = [.empty, .tooLarge(size: 2, limit: 1), .binary(offset: 0), .invalidUTF8(offset: 1),
                                         .invalidUTF16, .unsupportedEncoding("UTF-32"),
                                         .malformedXML(line: 1, column: 2, message: "x"), .xmlDoctypeNotAllowed,
                                         .notFinalDraft(root: "a"), .xmlTooDeep(limit: 3)]
        for e in errors {
            #expect(!e.description.isEmpty)
            #expect(!e.description.contains("\n"))
        }
    }

    @Test func pathologicalFountainTerminates() {
        let inputs = [String(repeating: "/*", count: 5000), String(repeating: "[[", count: 5000),
                      String(repeating: "*_", count: 5000), String(repeating: "#", count: 10000),
                      String(repeating: "@\n", count: 5000), String(repeating: "(\n", count: 5000),
                      String(repeating: "A\n", count: 20000)]
        for input in inputs {
            let doc = FountainParser().parse(input)
            #expect(doc.elements.count >= 1)
            _ = doc.elements.map(\.plainText)
        }
    }
}

/// A small deterministic generator for test data.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
