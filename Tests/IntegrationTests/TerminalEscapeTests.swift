import BookImport
import Foundation
import TerminalText
import Testing
import TextEscaping

/// Terminal control in text from outside (job errors, book fields) never reaches the terminal.
/// Pure: no server.
@Suite(.timeLimit(.minutes(1)))
struct TerminalEscapeTests {
    static let esc = "\u{1B}"

    @Test(arguments: [
        ("\u{1B}[2J\u{1B}[Hwiped", "wiped"),                          // CSI: clear screen, cursor home
        ("red \u{1B}[1;31mtext\u{1B}[0m", "red text"),                  // SGR
        ("\u{1B}]0;owned\u{07}title", "title"),                         // OSC window title, BEL-terminated
        ("\u{1B}]52;c;ZXZpbA==\u{1B}\\clip", "clip"),                   // OSC 52 clipboard, ST-terminated
        ("\u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\", "link"),   // OSC 8 hyperlink
        ("\u{1B}Pq#0;2;0;0;0\u{1B}\\sixel", "sixel"),                   // DCS
        ("\u{1B}_apc\u{1B}\\x", "x"),                                   // APC
        ("\u{1B}7saved\u{1B}8", "saved"),                               // two-character ESC sequences
        ("\u{1B}(Bcharset", "charset"),                                 // ESC with an intermediate
        ("\u{9B}31mC1 CSI", "C1 CSI"),                                  // 8-bit CSI
        ("\u{9D}0;t\u{9C}after", "after"),                              // 8-bit OSC and ST
        ("bell\u{07} back\u{08}space\u{7F} nul\u{00} cr\rline", "bell backspace nul crline"),
        ("\u{85}next\u{9F}", "next"),                                   // other C1 controls
        ("keeps\nnewlines\tand tabs", "keeps\nnewlines\tand tabs"),
        ("Cien años · 東京 · 🎬", "Cien años · 東京 · 🎬"),
        ("dangling \u{1B}", "dangling "),
        ("\u{1B}[31", ""),                                              // cut short
    ])
    func cleanRemovesControl(_ input: String, _ expected: String) {
        #expect(TerminalSafe.clean(input) == expected)
    }

    @Test func plainTextIsReturnedAsItIs() {
        let text = "Dune — Frank Herbert\n\t1965"
        #expect(TerminalSafe.clean(text) == text)
    }

    static func book(title: String, author: String) throws -> CatalogBook {
        let json: [String: Any] = [
            "id": UUID().uuidString, "isbn13": "9780441013593", "title": title, "authors": [author],
            "invalidISBNs": [], "publishers": ["\(esc)]0;pwned\u{07}Ace"], "subjects": [], "matchEvidence": [], "enrichPending": [],
        ]
        return try JSONDecoder().decode(CatalogBook.self, from: JSONSerialization.data(withJSONObject: json))
    }

    @Test func bookListAndDetailsPrintNoEscape() throws {
        let book = try Self.book(title: "Dune\(Self.esc)[2J\(Self.esc)[H", author: "Frank \u{9B}8mHerbert")
        let list = BookImportText.list([book])
        #expect(!list.unicodeScalars.contains { TerminalSafe.isControl($0) })
        #expect(list.contains("Dune") && list.contains("Frank Herbert"))
        let bookJSON = try JSONSerialization.jsonObject(with: JSONEncoder().encode(book))
        let detailsJSON = try JSONSerialization.data(withJSONObject: ["book": bookJSON, "rows": [Any]()])
        let details = BookImportText.details(try JSONDecoder().decode(CatalogBookDetails.self, from: detailsJSON))
        #expect(!details.unicodeScalars.contains { TerminalSafe.isControl($0) })
        #expect(details.contains("publishers  Ace"))
    }

    @Test func tablesCleanTheirCells() {
        let text = TextTable.render(header: ["ID", "ERROR"], rows: [["1", "boom\(Self.esc)]52;c;aGk=\u{07} (exit 1)"]])
        #expect(text.contains("boom (exit 1)"))
        #expect(!text.contains(Self.esc))
    }
}
