import Testing
@testable import BookCatalog

@Suite("Book exports", .timeLimit(.minutes(1)))
struct BookExportTests {
    @Test func goodreadsExport() throws {
        let export = try BookExport.read(try Fixture.bytes("goodreads_library_export"))
        #expect(export.format == .goodreads)
        #expect(export.problems == [.missingTitle(line: 9)])
        #expect(export.rows.map(\.line) == [2, 4, 5, 6, 7, 8, 10])

        let dune = export.rows[0]
        #expect(dune.title == "Dune (Dune, #1)")
        #expect(dune.authors == ["Frank Herbert"])
        #expect(dune.isbn == .valid(isbn13: "9780441172719"))
        #expect(dune.pages == 612)
        #expect(dune.year == 1965)
        #expect(dune.publisher == "Ace Books")
        #expect(dune.sourceID == "501")
        #expect(dune.user == UserFields(rating: 5, shelves: ["sci-fi", "favourites"], status: .read,
                                        dateAdded: "2021-01-02", dateRead: "2021-03-14"))

        // The unquoted ="" quirk is a missing ISBN, not an invalid one.
        #expect(export.rows[1].isbn == .missing)
        #expect(export.rows[2].isbn == .invalid("0441172718"))
        #expect(export.invalidISBNCount == 1)
        // Rating 0 is "unrated"; the exclusive shelf stands in for empty shelves.
        #expect(export.rows[3].user.rating == nil)
        #expect(export.rows[3].user.status == .currentlyReading)
        #expect(export.rows[1].user.shelves == ["read"])
        // Additional authors follow the primary one.
        #expect(export.rows[5].authors == ["Gabriel García Márquez", "Gregory Rabassa"])

        #expect(export.books.count == 4)
        #expect(export.mergedRowCount == 3)
        let merges = export.books.flatMap(\.merges)
        #expect(merges.contains(.init(line: 6, intoLine: 2, reason: .isbn)))
        #expect(merges.contains(.init(line: 7, intoLine: 4, reason: .titleAuthor)))
        #expect(merges.contains(.init(line: 10, intoLine: 8, reason: .titleAuthor)))
        // Each merged row keeps its own rating and status.
        let duneBook = try #require(export.books.first { $0.isbn13 == "9780441172719" })
        #expect(duneBook.rows.map(\.user.rating) == [5, nil])
        #expect(duneBook.rows.map(\.user.status) == [.read, .currentlyReading])
        #expect(duneBook.pages == 612)
    }

    @Test func libraryThingExport() throws {
        let export = try BookExport.read(try Fixture.bytes("librarything_export"))
        #expect(export.format == .libraryThing)
        #expect(export.problems.isEmpty)
        #expect(export.rows.map(\.line) == [2, 3, 5, 6])
        let kindred = export.rows[0]
        #expect(kindred.authors == ["Octavia E. Butler"])
        #expect(kindred.isbn == .valid(isbn13: "9780807014295"))
        #expect(kindred.publisher == "Beacon Press")
        #expect(kindred.year == 1979)
        #expect(kindred.user.rating == 4.5)
        #expect(kindred.user.shelves == ["slavery", "time travel"])
        #expect(kindred.user.status == .read) // a date read
        #expect(export.rows[1].isbn == .invalid("1234567890"))
        #expect(export.rows[1].pages == 320)
        #expect(export.rows[1].user.status == .toRead)
        #expect(export.rows[2].user.status == .currentlyReading)
        #expect(export.rows[3].authors == ["Octavia E. Butler", "Tananarive Due"])

        #expect(export.books.count == 2)
        #expect(Set(export.books.flatMap(\.merges)) == [
            .init(line: 5, intoLine: 3, reason: .titleAuthor), // "Hobbit, The" / "The Hobbit", J.R.R. / J. R. R.
            .init(line: 6, intoLine: 2, reason: .isbn),        // ISBN-10 on one row, ISBN-13 on the other
        ])
        let hobbit = try #require(export.books.first { $0.title == "Hobbit, The" })
        #expect(hobbit.invalidISBNs == ["1234567890"])
        #expect(hobbit.isbn13 == nil)
    }

    @Test func storyGraphExport() throws {
        let export = try BookExport.read(try Fixture.bytes("storygraph_export"))
        #expect(export.format == .storyGraph)
        #expect(export.rows.map(\.line) == [2, 4, 5, 6, 7])
        let piranesi = export.rows[0]
        #expect(piranesi.isbn == .valid(isbn13: "9781843530312"))
        #expect(piranesi.user.rating == 4.75)
        #expect(piranesi.user.dateRead == "2022-01-15")
        #expect(piranesi.user.shelves == ["fantasy", "favourites"])
        // A UID that is not an ISBN is the export's own id, not a flagged ISBN.
        #expect(export.rows[2].isbn == .missing)
        #expect(export.rows[2].sourceID == "B00ABCDEF1")
        #expect(export.rows[2].user.status == .didNotFinish)
        #expect(export.rows[3].isbn == .invalid("9780306815943"))
        #expect(export.rows[4].isbn == .valid(isbn13: "9780306815942"))
        #expect(export.rows[4].authors == ["Neal Stephenson", "Someone Else"])
        #expect(export.books.count == 4)
        #expect(export.books[0].merges == [.init(line: 4, intoLine: 2, reason: .isbn)])
    }

    @Test func formatIsDetectedOrChecked() throws {
        let goodreads = try Fixture.bytes("goodreads_library_export")
        #expect(throws: ExportReadError.format(.missingColumns(format: .storyGraph, missing: ["Authors", "ISBN/UID", "Read Status"]))) {
            try BookExport.read(goodreads, format: .storyGraph)
        }
        #expect(try BookExport.read(goodreads, format: .goodreads).format == .goodreads)
        #expect(ExportFormat.detect(header: ["Name", "Email"]) == nil)
        for format in ExportFormat.allCases {
            #expect(ExportFormat.detect(header: format.requiredColumns) == format)
        }
    }

    @Test func badFilesCreateNothing() {
        #expect(throws: ExportReadError.format(.unknownColumns(columns: ["Name", "Email"]))) {
            try BookExport.read(Array("Name,Email\nA,a@example.com\n".utf8))
        }
        #expect(throws: ExportReadError.noRows) {
            try BookExport.read(Array("Title,Authors,ISBN/UID,Read Status\n".utf8))
        }
        #expect(throws: ExportReadError.csv(.binary(offset: 2))) { try BookExport.read([0x50, 0x4B, 0, 3]) }
        // Plain prose is not an export either.
        #expect(throws: ExportReadError.self) {
            try BookExport.read(Array(String(repeating: "lorem ipsum dolor sit amet ", count: 2000).utf8))
        }
        #expect(!ExportReadError.format(.unknownColumns(columns: (1...20).map { "c\($0)" })).description.contains("c7"))
    }

    @Test func rowWithExtraFieldsIsReportedAndTheRestImports() throws {
        let text = "Title,Authors,ISBN/UID,Read Status\nA,X,,read\nB,Y,,read,surprise\nC,Z,,to-read,\n"
        let export = try BookExport.read(Array(text.utf8))
        #expect(export.problems == [.tooManyFields(line: 3, expected: 4, found: 5)])
        #expect(export.rows.map(\.title) == ["A", "C"]) // a trailing empty field is harmless
    }
}
