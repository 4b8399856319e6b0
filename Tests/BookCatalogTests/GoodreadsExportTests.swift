import Testing
@testable import BookCatalog

@Suite("Goodreads exports", .timeLimit(.minutes(1)))
struct GoodreadsExportTests {
    /// Independent count: every Goodreads row starts with its numeric Book Id and a comma.
    func rowLines(_ bytes: [UInt8]) -> [Int] {
        Fixture.lines(of: bytes) { $0.range(of: #"^\d+,"#, options: .regularExpression) != nil }
    }

    @Test func junkInISBNCellsAndOtherQuirks() throws {
        let bytes = try Fixture.bytes("goodreads_quirks")
        let export = try BookExport.read(bytes)
        #expect(export.variant == .goodreads24)
        #expect(export.problems.isEmpty)
        #expect(export.rows.map(\.line) == rowLines(bytes))
        #expect(export.rows.count == 8)

        let kindred = export.rows[0]
        #expect(kindred.authors == ["Octavia E. Butler"]) // "Octavia E.  Butler"
        #expect(kindred.isbn == .valid(isbn13: "9780807083697"))
        #expect(kindred.review == "Time travel done right.\n\nRead it twice, <b>slowly</b>.")
        // =""""  (unquoted) and "="""""" (quoted) are both no ISBN, not an invalid one.
        #expect(export.rows[1].isbn == .missing)
        // A name in the ISBN column: no ISBN from it, noted; the ISBN13 column still counts.
        #expect(export.rows[2].isbn == .valid(isbn13: "9780547773742"))
        // Eleven digits and an ISBN-13 ending in X: invalid, kept and flagged.
        #expect(export.rows[3].isbn == .invalid("04411727171"))
        #expect(export.rows[4].isbn == .invalid("978044117271X"))
        // Ten digits in the ISBN13 column are an ISBN-10.
        #expect(export.rows[5].isbn == .valid(isbn13: "9780441172719"))
        #expect(export.rows[5].review == "Spice.\nWorms.")
        // A number a spreadsheet rounded: flagged, never a wrong ISBN.
        #expect(export.rows[6].isbn == .invalid("9.78044E+12"))
        #expect(export.rows[7].authors == ["Albert Camus", "Matthew Ward", "Some Translator"])
        #expect(export.invalidISBNCount == 3)
        #expect(export.notes == [
            .notAnISBN(line: 4, column: "ISBN", text: "Ursula K. Le Guin"),
            .spreadsheetNumber(line: 8, column: "ISBN13", text: "9.78044E+12"),
        ])
    }

    @Test(arguments: [("goodreads_31_columns", ExportVariant.goodreads31), ("goodreads_23_columns", .goodreads23),
                      ("goodreads_library_export", .goodreads24)])
    func everyHeaderVersionReads(fixture: String, variant: ExportVariant) throws {
        let bytes = try Fixture.bytes(fixture)
        let export = try BookExport.read(bytes)
        #expect(export.format == .goodreads)
        #expect(export.variant == variant)
        #expect((export.rows.map(\.line) + export.problems.map(\.line)).sorted() == rowLines(bytes))
        #expect(try BookExport.read(bytes, format: .goodreads).variant == variant)
    }

    @Test func olderHeadersMapTheSameColumns() throws {
        let old = try BookExport.read(try Fixture.bytes("goodreads_31_columns"))
        #expect(old.rows[0].title == "Engleby")
        #expect(old.rows[0].isbn == .valid(isbn13: "9780091794552"))
        #expect(old.rows[0].user == UserFields(rating: 3, shelves: ["read"], status: .read, dateAdded: "2008-01-02", dateRead: "2008-01-19"))
        #expect(old.rows[1].isbn == .missing)
        #expect(old.rows[1].user.status == .toRead)
        let short = try BookExport.read(try Fixture.bytes("goodreads_23_columns"))
        #expect(short.rows[0].isbn == .valid(isbn13: "9781526622419"))
        #expect(short.rows[0].user.shelves == ["fantasy", "favourites"])
        #expect(short.rows[1].user.status == .currentlyReading)
        #expect(short.rows[1].year == 2018)
    }
}
