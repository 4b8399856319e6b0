import Foundation
import Testing
@testable import Screenplay

/// Inputs found by `scripts/fuzz-parsers.sh`, replayed through the same checks as the fuzz
/// target (fuzz/Sources/ScreenplayFuzz/FuzzTarget.swift).
@Suite("Fuzz regressions", .timeLimit(.minutes(2)))
struct FuzzRegressionTests {
    /// The fuzz target's invariants: every parser terminates, orderIndex starts at 1, and the
    /// FDX writer's output always parses. `decodes` says whether the input is text (a fuzz
    /// regression is replayed through the parsers, so it must be); any error other than the ones
    /// an input can legitimately earn fails the test instead of being swallowed.
    static func check(_ bytes: [UInt8], decodes: Bool = true) throws {
        let options = ParseOptions(maxBytes: 1 << 20)
        let text: String
        do throws(ScreenplayError) {
            text = try InputDecoder.decode(bytes, options: options)
        } catch {
            switch error {
            case .empty, .binary, .invalidUTF8, .invalidUTF16, .unsupportedEncoding, .tooLarge:
                #expect(!decodes, "the input was meant to decode but was rejected: \(error)")
            default:
                Issue.record("decoding can only fail for input-level reasons, got \(error)")
            }
            return
        }
        #expect(decodes, "the input was meant to be rejected but decoded")
        // The reader sniffs the format: decodable text can only fail there as FDX that is not
        // well-formed Final Draft XML (text starting with `<?xml` or `<FinalDraft`).
        do throws(ScreenplayError) {
            _ = try ScreenplayReader.read(bytes, options: options)
        } catch {
            switch error {
            case .malformedXML, .notFinalDraft, .xmlDoctypeNotAllowed, .xmlTooDeep:
                #expect(FormatDetector.sniff(text) == .fdx, "only a sniffed FDX can fail as XML: \(error)")
            default: Issue.record("reading decodable text failed with \(error)")
            }
        }
        var documents = [FountainParser().parse(text), MarkdownParser().parse(text)]
        do throws(ScreenplayError) {
            documents.append(try FDXParser().parse(text))
        } catch {
            switch error {
            case .malformedXML, .notFinalDraft, .xmlDoctypeNotAllowed, .xmlTooDeep: break  // not FDX: expected
            default: Issue.record("the FDX parser failed with a non-XML error: \(error)")
            }
        }
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
