import Foundation
import Testing
@testable import BookCatalog

@Suite("LibraryThing exports", .timeLimit(.minutes(1)))
struct LibraryThingExportTests {
    @Test func tabSeparatedWithMARC8BytesIsReadNotRefused() throws {
        let bytes = try Fixture.bytes("librarything_marc8", extension: "tsv")
        #expect(bytes.contains(0xE2)) // the raw MARC-8 acute is really in the file
        let export = try BookExport.read(bytes)
        #expect(export.format == .libraryThing)
        #expect(export.variant == .libraryThingTSV)
        #expect(export.problems.isEmpty)
        // Independent count: every line after the header that is not empty is one book.
        let expected = Fixture.lines(of: bytes) { !$0.isEmpty && !$0.hasPrefix("Book Id\t") }
        #expect(export.rows.map(\.line) == expected)
        #expect(expected == [2, 3, 4, 5, 6, 7])

        let bestiario = export.rows[0]
        #expect(bestiario.authors == ["Julio Cortázar"])
        #expect(bestiario.isbn == .valid(isbn13: "9789500702126"))
        #expect(bestiario.publisher == "Sudamericana")
        #expect(bestiario.pages == 160)
        #expect(bestiario.year == 1951)
        #expect(bestiario.sourceID == "7100201")
        #expect(bestiario.user == UserFields(rating: 4.5, shelves: ["cuentos", "argentina"], status: .read,
                                             dateAdded: "2020-12-24", dateRead: "2021-02-10", dateStarted: "2021-02-01"))
        #expect(export.rows[1].authors == ["Karel Čapek"])
        #expect(export.rows[1].user.status == .toRead)
        #expect(export.rows[2].authors == ["Günter Grass"])
        #expect(export.rows[2].user.status == .read) // read but unowned
        #expect(export.rows[3].authors == ["Antonín Dvořák", "Otakar Šourek"])
        #expect(export.rows[3].review == "Warm letters.\nWorth it for the American years.")
        #expect(export.rows[4].authors == ["Jorge Luis Borges"]) // UTF-8 left as it was
        #expect(export.rows[4].publisher == "Emecé")
        #expect(export.rows[4].user.shelves == ["metaficción"])
        #expect(export.rows[4].user.status == .currentlyReading)
        #expect(export.rows[5].authors == ["Françoise Sagan"])
        // Each row with MARC-8 bytes is noted, and only those.
        #expect(export.notes == [2, 3, 4, 5, 7].map { .textRepaired(line: $0, reading: .marc8) })
        #expect(export.notes.allSatisfy { !$0.description.contains("\n") })
    }

    @Test func theCSVOf2014WithQuotedHeaders() throws {
        let bytes = try Fixture.bytes("librarything_2014")
        let export = try BookExport.read(bytes)
        #expect(export.format == .libraryThing)
        #expect(export.variant == .libraryThing2014)
        // Independent count: each record holds one entry timestamp, whatever its subjects span.
        let text = String(decoding: bytes, as: UTF8.self)
        let stamps = text.matches(of: /"20\d\d-\d\d-\d\d \d\d:\d\d:\d\d"/).count
        #expect(export.rows.count + export.problems.count == stamps)
        #expect(export.rows.map(\.line) == [2, 5, 7, 8, 10])
        #expect(export.problems == [.missingTitle(line: 11)])

        let bough = export.rows[0]
        #expect(bough.title == "Golden Bough, The")
        #expect(bough.authors == ["James George Frazer"])
        #expect(bough.year == nil) // "?"
        #expect(bough.isbn == .missing) // "[]"
        #expect(bough.publisher == nil) // "Publisher Unknown"
        #expect(bough.user.rating == nil) // 0
        #expect(bough.user.dateAdded == "2014-02-03")
        #expect(bough.user.shelves == ["anthropology", "myth"])
        let walden = export.rows[1]
        #expect(walden.isbn == .valid(isbn13: "9780140449136"))
        #expect(walden.year == 1854)
        #expect(walden.publisher == "Penguin")
        #expect(walden.pages == 352)
        #expect(walden.user.rating == 4)
        #expect(walden.review == "Slow, then not.")
        #expect(export.rows[2].user.status == .toRead)
        #expect(export.rows[3].isbn == .valid(isbn13: "9780306815942"))
        #expect(export.rows[3].user.status == .currentlyReading)
        #expect(export.rows[4].authors.isEmpty)
        #expect(export.notes.isEmpty)
        // The quoted header names the format, and a named format is checked against it.
        #expect(try BookExport.read(bytes, format: .libraryThing).variant == .libraryThing2014)
        #expect(throws: ExportReadError.self) { try BookExport.read(bytes, format: .goodreads) }
    }

    @Test func theJSONExport() throws {
        let bytes = try Fixture.bytes("librarything_export", extension: "json")
        let export = try BookExport.read(bytes)
        #expect(export.format == .libraryThing)
        #expect(export.variant == .libraryThingJSON)
        // Independent reading: the books are the top-level keys, on the lines that open them.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(export.rows.count + export.problems.count == object.count)
        let opening = Fixture.lines(of: bytes) { $0.range(of: #"^\{?"\d+": \{$"#, options: .regularExpression) != nil }
        #expect((export.rows.map(\.line) + export.problems.map(\.line)).sorted() == opening)
        #expect(export.problems.map(\.line) == [opening[3]]) // 31004 has no title

        let kindred = export.rows[0]
        #expect(kindred.line == 1)
        #expect(kindred.title == "Kindred")
        #expect(kindred.authors == ["Octavia E. Butler"])
        #expect(kindred.isbn == .valid(isbn13: "9780807083697"))
        #expect(kindred.sourceID == "31001")
        #expect(kindred.publisher == "Beacon Press")
        #expect(kindred.pages == 264)
        #expect(kindred.year == 1979)
        #expect(kindred.review == "Unflinching & humane.\nI read it in two days.")
        #expect(kindred.user == UserFields(rating: 4.5, shelves: ["time travel", "slavery"], status: .read,
                                           dateAdded: "2019-05-01", dateRead: "2019-06-09", dateStarted: "2019-06-01"))
        let magic = export.rows[1]
        #expect(magic.title == "Magic & Mayhem")
        #expect(magic.authors.isEmpty) // "authors": [[]]
        #expect(magic.isbn == .missing) // an ASIN is not an ISBN
        #expect(magic.year == nil) // "?"
        #expect(magic.publisher == nil)
        #expect(magic.user.status == .toRead)
        let again = export.rows[2]
        #expect(again.authors == ["Octavia E. Butler", "Tananarive Due"])
        #expect(again.user.status == .currentlyReading)
        let cafe = export.rows[3]
        #expect(cafe.title == "Café Stories")
        #expect(cafe.sourceID == "31005") // a number
        #expect(cafe.user.rating == 3.5) // a string
        #expect(cafe.isbn == .valid(isbn13: "9780441172719"))
        #expect(export.notes == [.leadingZeroRestored(line: cafe.line, column: "originalisbn", text: "441172717",
                                                       isbn13: "9780441172719")])
        // The two Kindred rows are one book (same ISBN-13).
        #expect(export.books.count == 3)
        #expect(export.books[0].merges == [.init(line: again.line, intoLine: 1, reason: .isbn)])
    }

    @Test func jsonThatIsNotAnExport() {
        #expect(throws: ExportReadError.json(.malformed)) { try BookExport.read(Array(#"{"1": {"title": "x"}"#.utf8)) }
        #expect(throws: ExportReadError.json(.notLibraryThing)) { try BookExport.read(Array(#"{"a": 1, "b": [2]}"#.utf8)) }
        #expect(throws: ExportReadError.json(.notLibraryThing)) { try BookExport.read(Array(#"[1, 2, 3]"#.utf8)) }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: ExportReadError.json(.tooDeep(limit: JSONOutline.maxDepth))) { try BookExport.read(Array(deep.utf8)) }
        #expect(throws: ExportReadError.format(.missingColumns(format: .goodreads, missing: ExportFormat.goodreads.requiredColumns))) {
            try BookExport.read(Array(#"{"1": {"title": "x"}}"#.utf8), format: .goodreads)
        }
        // An array of books reads too, each on its own line.
        let array = try? BookExport.read(Array("[\n{\"title\": \"A\"},\n{\"title\": \"B\", \"isbn\": \"0441172717\"}\n]".utf8))
        #expect(array?.rows.map(\.line) == [2, 3])
        #expect(array?.rows.last?.isbn == .valid(isbn13: "9780441172719"))
    }

    @Test func jsonKeysWithEscapes() throws {
        let members = try JSONOutline.members(of: "{\"a\\\"b\": 1,\n \"\\u00e9\\ud83d\\udcda\": {\"x\": \"}\"}}")
        #expect(members == [.init(key: "a\"b", line: 1), .init(key: "é\u{1F4DA}", line: 2)])
    }
}
