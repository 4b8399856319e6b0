import Testing
@testable import BookCatalog

@Suite("StoryGraph exports", .timeLimit(.minutes(1)))
struct StoryGraphExportTests {
    @Test func quarterStarsSpansASINsAndSpreadsheetDamage() throws {
        let bytes = try Fixture.bytes("storygraph_quirks")
        let export = try BookExport.read(bytes)
        #expect(export.variant == .storyGraph)
        #expect(export.problems.isEmpty)
        // Independent count: one Format cell per row.
        let formats = Fixture.lines(of: bytes) { line in
            ["paperback", "ebook", "audiobook", "hardcover"].contains { line.contains(",\($0),") }
        }
        #expect(export.rows.map(\.line) == formats)

        let fifth = export.rows[0]
        #expect(fifth.user.rating == 4.75)
        #expect(fifth.user.dateRead == "2023-01-20")
        #expect(fifth.user.dateStarted == "2023-01-02")
        #expect(fifth.review == "Stone and sky.\nBrilliant.")
        let obelisk = export.rows[1]
        #expect(obelisk.user.rating == 3.25)
        #expect(obelisk.user.dateRead == "2023-02-28") // the last span's end; no Last Date Read
        #expect(obelisk.user.dateStarted == "2023-02-10")
        let stone = export.rows[2]
        #expect(stone.isbn == .missing)
        #expect(stone.sourceID == "B0CXYZ1234") // an ASIN is the export's id, not an ISBN
        let rounded = export.rows[3]
        #expect(rounded.isbn == .invalid("9.78053E+12"))
        #expect(rounded.sourceID == nil)
        let dune = export.rows[4]
        #expect(dune.isbn == .valid(isbn13: "9780441172719")) // 0441172717 with its zero back
        #expect(dune.user.rating == 5)
        let notProvable = export.rows[5]
        #expect(notProvable.isbn == .invalid("441172718"))
        #expect(notProvable.user.rating == nil) // 3.3 is no quarter
        let now = export.rows[6]
        #expect(now.authors == ["Ann Leckie"])
        #expect(now.user.dateStarted == "2024-03-01")
        #expect(now.user.dateRead == nil)
        #expect(export.notes == [
            .spreadsheetNumber(line: 5, column: "ISBN/UID", text: "9.78053E+12"),
            .leadingZeroRestored(line: 6, column: "ISBN/UID", text: "441172717", isbn13: "9780441172719"),
        ])
        #expect(export.invalidISBNCount == 2)
    }

    @Test func datesReadSpans() {
        #expect(ExportDate.spans("2023/01/02-2023/01/20").map { [$0.started, $0.finished] } == [["2023-01-02", "2023-01-20"]])
        #expect(ExportDate.spans("2023-01-02-2023-01-20").map { [$0.started, $0.finished] } == [["2023-01-02", "2023-01-20"]])
        #expect(ExportDate.spans("2022/05/01-2022/05/09, 2023/02/10-").map { [$0.started, $0.finished] }
            == [["2022-05-01", "2022-05-09"], ["2023-02-10", nil]])
        #expect(ExportDate.spans("2023/01/20").map { [$0.started, $0.finished] } == [[nil, "2023-01-20"]])
        #expect(ExportDate.spans("soon-ish, 2023/02/30-2023/03/01").isEmpty)
        #expect(ExportDate.spans(String(repeating: "-", count: 100_000)).isEmpty)
    }
}
