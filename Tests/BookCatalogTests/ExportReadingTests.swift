import Testing
@testable import BookCatalog

@Suite("Reading cells", .timeLimit(.minutes(1)))
struct ExportReadingTests {
    @Test func isbnCells() {
        #expect(ISBNCell("=\"\"\"\"").value == .missing)
        #expect(ISBNCell("=\"\"").value == .missing)
        #expect(ISBNCell("Ursula K. Le Guin").damage == .notAnISBN)
        #expect(ISBNCell("N/A").damage == .notAnISBN)
        #expect(ISBNCell("B00ABCDEF1").damage == .notAnISBN)
        #expect(ISBNCell("04411727X7").value == .invalid("04411727X7")) // a typo, not a word
        #expect(ISBNCell("9.78053E+12").damage == .spreadsheetNumber)
        #expect(ISBNCell("9,78053E+12").damage == .spreadsheetNumber)
        #expect(ISBNCell("9E12").damage == .spreadsheetNumber)
        #expect(ISBNCell("441172717").value == .valid(isbn13: "9780441172719"))
        #expect(ISBNCell("30681594X").value == .valid(isbn13: "9780306815942"))
        #expect(ISBNCell("441172718").damage == nil)
        #expect(ISBNCell("9780441172719").damage == nil)
        #expect(!ISBNCell.isScientificNotation("E12"))
        #expect(!ISBNCell.isScientificNotation("9.7.8E+12"))
    }

    @Test func ratingsAreQuarterStarsOrNothing() {
        #expect(RowMapper.rating("3.25") == 3.25)
        #expect(RowMapper.rating("4,75") == 4.75)
        #expect(RowMapper.rating("4.5") == 4.5)
        #expect(RowMapper.rating("5") == 5)
        for junk in ["0", "3.3", "6", "-1", "nan", "inf", "1e0", "", "+4", "0x4", "4.1"] {
            #expect(RowMapper.rating(junk) == nil, "\(junk)")
        }
    }

    @Test func datesAsTheExportsWriteThem() {
        #expect(ExportDate.day("[2007-04-16]") == "2007-04-16")
        #expect(ExportDate.day("2014-01-21 18:49:25") == "2014-01-21")
        #expect(ExportDate.day("2021/03/14") == "2021-03-14")
        #expect(ExportDate.day("?") == nil)
        #expect(ExportDate.day("2023/+1/05") == nil)
        #expect(ExportDate.day("2023/02/29") == nil)
        #expect(ExportDate.day("2023/01/02-2023/01/20") == nil)
    }

    @Test func reviewsAndEntities() {
        #expect(HTMLText.review("a<br/>b<br />c<BR>d[Return]e") == "a\nb\nc\nd\ne")
        #expect(HTMLText.review(" <br/> ") == nil)
        #expect(HTMLText.review("x < y [sic]") == "x < y [sic]")
        #expect(HTMLText.decodingEntities("A &amp; B &lt;3 &#233;t&#xE9; &#99999999; &bogus; &") == "A & B <3 été &#99999999; &bogus; &")
    }

    @Test func headerNamesInSingleQuotes() {
        #expect(ExportFormat.columnName("'TITLE'") == "TITLE")
        #expect(ExportFormat.columnName("'AUTHOR (last, first)'") == "AUTHOR (last, first)")
        #expect(ExportFormat.columnName("'") == "'")
        #expect(ExportFormat.columnName("Title") == "Title")
        #expect(ExportFormat.detect(header: ["'TITLE'", "'AUTHOR (last, first)'", "'ISBNs'"]) == .libraryThing)
        #expect(ExportVariant.detect(header: ExportFormat.libraryThing.requiredColumns, delimiter: .tab) == .libraryThingTSV)
        for variant in ExportVariant.allCases where !variant.requiredColumns.isEmpty {
            #expect(ExportVariant.detect(header: variant.requiredColumns)?.format == variant.format)
        }
    }

    @Test func tabSeparatedTablesKeepQuotesAsText() throws {
        let table = try CSVReader.read(Array("Title\tAuthor\n\"Repent, Harlequin!\" Said\tHarlan Ellison\r\n\nX\tY\rZ".utf8))
        #expect(table.delimiter == .tab)
        #expect(table.records.map(\.fields) == [["\"Repent, Harlequin!\" Said", "Harlan Ellison"], ["X", "Y"], ["Z"]])
        #expect(table.records.map(\.line) == [2, 4, 5])
        #expect(try CSVReader.read(Array("a,b\tc\n1,2\n".utf8)).delimiter == .comma)
    }
}
