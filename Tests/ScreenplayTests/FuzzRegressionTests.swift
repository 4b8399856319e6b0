import Foundation
import Testing
@testable import Screenplay

/// Inputs found by `scripts/fuzz-parsers.sh`, replayed through the same checks as the fuzz
/// target (fuzz/Sources/ScreenplayFuzz/FuzzTarget.swift).
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// The fuzz target's invariants: every parser terminates, orderIndex starts at 1, and the
    /// FDX writer's output always parses.
    static func check(_ bytes: [UInt8]) throws {
        let options = ParseOptions(maxBytes: 1 << 20)
        _ = try? ScreenplayReader.read(bytes, options: options)
        guard let text = try? InputDecoder.decode(bytes, options: options) else { return }
        var documents = [FountainParser().parse(text), MarkdownParser().parse(text)]
        if let fdx = try? FDXParser().parse(text) { documents.append(fdx) }
        for doc in documents {
            #expect(doc.elements.allSatisfy { $0.orderIndex >= 1 })
            _ = doc.elements.map(\.plainText)
            _ = DocumentJSON.encode(doc)
            _ = FountainParser().parse(FountainWriter().write(doc))
            _ = try FDXParser().parse(FDXWriter().write(doc))
        }
    }

    /// crash-c4ea21bb…: a lone U+0002 became `<Text>\u{2}</Text>`, which is not XML 1.0.
    @Test func controlCharacterInFDXOutput() throws {
        try Self.check([0x02])
        let doc = ScreenplayDocument(format: .fountain, elements: [Element(type: .action, text: "a\u{2}b\u{FFFE}c\td")])
        let again = try FDXParser().parse(FDXWriter().write(doc))
        #expect(again.elements.map(\.text) == ["abc\td"])
    }
}
