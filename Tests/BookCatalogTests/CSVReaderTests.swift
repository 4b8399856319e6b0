import Testing
@testable import BookCatalog

@Suite("CSV reader", .timeLimit(.minutes(1)))
struct CSVReaderTests {
    func read(_ text: String) throws(CSVError) -> CSVTable { try CSVReader.read(Array(text.utf8)) }

    @Test func quotedFieldsHoldCommasNewlinesAndDoubledQuotes() throws {
        let table = try read("a,b,c\n1,\"x, y\",\"say \"\"hi\"\"\nthen go\"\n2,,z\n")
        #expect(table.header == ["a", "b", "c"])
        #expect(table.records.count == 2)
        #expect(table.records[0].fields == ["1", "x, y", "say \"hi\"\nthen go"])
        #expect(table.records[0].line == 2)
        #expect(table.records[1].fields == ["2", "", "z"])
        #expect(table.records[1].line == 4) // the quoted line break counts
    }

    @Test func byteOrderMarkAndCRLF() throws {
        let table = try CSVReader.read([0xEF, 0xBB, 0xBF] + Array("Title,Author\r\nDune,Frank Herbert\r\n\r\nEmma,\"Austen, Jane\"".utf8))
        #expect(table.header == ["Title", "Author"]) // not "\u{FEFF}Title"
        #expect(table.records.map(\.fields) == [["Dune", "Frank Herbert"], ["Emma", "Austen, Jane"]])
        #expect(table.records.map(\.line) == [2, 4])
    }

    @Test func loneCarriageReturnsSeparateRecords() throws {
        let table = try read("a,b\r1,2\r3,4")
        #expect(table.records.map(\.fields) == [["1", "2"], ["3", "4"]])
        #expect(table.records.map(\.line) == [2, 3])
    }

    @Test func quotesInsideUnquotedFieldsAreText() throws {
        // Goodreads' ISBN spellings, in both the quoted and unquoted forms.
        let table = try read("ISBN,ISBN13\n=\"0441172717\",\"=\"\"9780441172719\"\"\"\n=\"\",\"=\"\"\"\"\"\n")
        #expect(table.records[0].fields == ["=\"0441172717\"", "=\"9780441172719\""])
        #expect(table.records[1].fields == ["=\"\"", "=\"\""])
    }

    @Test func unterminatedQuoteNamesTheLineItOpened() {
        #expect(throws: CSVError.unterminatedQuote(line: 3)) { try read("a,b\n1,2\n3,\"never closed\n4,5\n") }
    }

    @Test func textAfterClosingQuoteIsAnError() {
        #expect(throws: CSVError.textAfterClosingQuote(line: 2)) { try read("a,b\n\"x\"y,2\n") }
        // Spaces after the closing quote are tolerated.
        #expect(throws: Never.self) { try read("a,b\n\"x\"  ,2\n") }
    }

    @Test func emptyAndWhitespaceOnlyInput() {
        #expect(throws: CSVError.empty) { try CSVReader.read([]) }
        #expect(throws: CSVError.empty) { try CSVReader.read([0xEF, 0xBB, 0xBF]) }
        #expect(throws: CSVError.empty) { try read(" \r\n\n\t") }
    }

    @Test func headerWithoutNamesAndDuplicateColumns() {
        #expect(throws: CSVError.noHeader) { try read(",,\n1,2,3\n") }
        #expect(throws: CSVError.duplicateColumn(name: "title")) { try read("Title,title\n1,2\n") }
    }

    @Test func binaryAndInvalidUTF8AreRefused() {
        #expect(throws: CSVError.binary(offset: 7)) { try CSVReader.read(Array("Title\nx".utf8) + [0, 1, 2]) }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D]
        #expect(throws: CSVError.binary(offset: 8)) { try CSVReader.read(png) }
        #expect(throws: CSVError.invalidUTF8(offset: 3)) { try CSVReader.read([0x41, 0x2C, 0x42, 0xC3, 0x28]) }
        #expect(throws: CSVError.invalidUTF8(offset: 1)) { try CSVReader.read([0x41, 0xED, 0xA0, 0x80]) } // a surrogate
        let controls = (0..<400).map { UInt8(1 + $0 % 8) }
        #expect(throws: CSVError.self) { try CSVReader.read(controls) }
    }

    @Test func randomBytesAreRefused() {
        var state: UInt64 = 0x9E3779B97F4A7C15
        let bytes = (0..<65_536).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        #expect(throws: CSVError.self) { try CSVReader.read(bytes) }
    }

    @Test func sizeLimit() {
        let bytes = Array(String(repeating: "a,b\n", count: 100).utf8)
        #expect(throws: CSVError.tooLarge(size: 400, limit: 399)) { try CSVReader.read(bytes, maxBytes: 399) }
        #expect(throws: Never.self) { try CSVReader.read(bytes, maxBytes: 400) }
    }

    @Test func errorsReadAsOneLine() {
        for error in [CSVError.unterminatedQuote(line: 7), .binary(offset: 3), .invalidUTF8(offset: 9), .empty, .noHeader] {
            #expect(!error.description.contains("\n"))
            #expect(!error.description.isEmpty)
        }
        #expect(CSVError.unterminatedQuote(line: 7).description.contains("line 7"))
    }
}

@Suite("CSV writer", .timeLimit(.minutes(1)))
struct CSVWriterTests {
    @Test func whatIsWrittenReadsBackTheSame() throws {
        let rows = [["Dune", "Herbert, Frank", "say \"hi\"\nthen go"], ["", "=1+1", "plain"], ["Cien años", "-", "@x"]]
        let text = CSVWriter.write(header: ["Title", "Author", "Note"], rows: rows)
        #expect(text.hasSuffix("\r\n"))
        let table = try CSVReader.read(Array(text.utf8))
        #expect(table.header == ["Title", "Author", "Note"])
        #expect(table.records.map(\.fields) == [rows[0], ["", "'=1+1", "plain"], ["Cien años", "'-", "'@x"]])
    }

    @Test(arguments: ["=HYPERLINK(\"x\")", "+1", "-1", "@SUM(A1)", "\t=1+1", "\r=1+1", "\r\n=1+1"])
    func formulaStartsGetAQuote(_ cell: String) throws {
        let text = CSVWriter.write(header: ["Note"], rows: [[cell]])
        let table = try CSVReader.read(Array(text.utf8))
        #expect(table.records.map(\.fields) == [["'" + cell]])
    }

    @Test func otherCellsAreWrittenAsTheyAre() throws {
        let cells = ["Dune", " =1", "a=b", "1-2", "x\t"]
        let table = try CSVReader.read(Array(CSVWriter.write(header: ["Note"], rows: cells.map { [$0] }).utf8))
        #expect(table.records.map(\.fields) == cells.map { [$0] })
    }
}
