extension RowMapper {
    /// A row of LibraryThing's CSV or TSV: "Last, First" authors turned round, ISBNs in brackets,
    /// dates in brackets (TSV), collections as the status.
    func libraryThing(_ record: CSVTable.Record, title: String) -> Mapped {
        let authors = Self.names([PersonName.turned(cell(record, "Primary Author"))]
            + Self.list(cell(record, "Secondary Author"), separators: ["|", ";"]).map(PersonName.turned))
        var candidates = [ISBNCell(cell(record, "ISBN"))]
        candidates += Self.list(ISBN.bracketsRemoved(cell(record, "ISBNs")), separators: [",", " "]).map(ISBNCell.init)
        let dateRead = ExportDate.day(cell(record, "Date Read"))
        let publication = cell(record, "Publication")
        let user = UserFields(
            rating: Self.rating(cell(record, "Rating")),
            shelves: Self.list(cell(record, "Tags"), separators: [","]),
            status: Self.libraryThingStatus(collections: Self.list(cell(record, "Collections"), separators: [",", "|"]),
                                            dateRead: dateRead),
            dateAdded: ExportDate.day(cell(record, "Entry Date")),
            dateRead: dateRead,
            dateStarted: ExportDate.day(cell(record, "Date Started")))
        let row = ImportRow(
            line: record.line, title: title, authors: authors, isbn: Self.best(candidates.map(\.value)),
            sourceID: nonEmpty(record, "Book Id"), publisher: Self.publisher(publication),
            pages: Self.integer(cell(record, "Page Count")) ?? Self.pages(publication),
            year: ExportDate.year(cell(record, "Date")), user: user, review: HTMLText.review(cell(record, "Review")))
        return Mapped(row: row, notes: Self.isbnNotes(candidates, line: record.line, column: "ISBNs"))
    }

    /// A row of LibraryThing's 2014 CSV (`'TITLE'`, `'AUTHOR (first, last)'`, `'ISBNs'`,
    /// `'PUBLICATION INFO'`, `'RATINGS'`, `'REVIEWS'`, `'ENTRY DATE'`, `'COLLECTIONS'`, `'TAGS'`):
    /// `?` is an unknown date.
    func libraryThing2014(_ record: CSVTable.Record, title: String) -> Mapped {
        let firstLast = cell(record, "AUTHOR (first, last)")
        let authors = Self.names([firstLast.isEmpty ? PersonName.turned(cell(record, "AUTHOR (last, first)")) : firstLast])
        let candidates = Self.list(ISBN.bracketsRemoved(cell(record, "ISBNs")), separators: [",", " "]).map(ISBNCell.init)
        let publication = cell(record, "PUBLICATION INFO")
        let user = UserFields(
            rating: Self.rating(cell(record, "RATINGS")),
            shelves: Self.list(cell(record, "TAGS"), separators: [","]),
            status: Self.libraryThingStatus(collections: Self.list(cell(record, "COLLECTIONS"), separators: [",", "|"]),
                                            dateRead: nil),
            dateAdded: ExportDate.day(cell(record, "ENTRY DATE")))
        let row = ImportRow(
            line: record.line, title: title, authors: authors, isbn: Self.best(candidates.map(\.value)),
            publisher: Self.publisher(publication), pages: Self.pages(publication),
            year: ExportDate.year(cell(record, "DATE")), user: user, review: HTMLText.review(cell(record, "REVIEWS")))
        return Mapped(row: row, notes: Self.isbnNotes(candidates, line: record.line, column: "ISBNs"))
    }

    /// LibraryThing's collections (and a date read) as a status.
    static func libraryThingStatus(collections: [String], dateRead: String?) -> ReadStatus {
        let names = Set(collections.map { $0.lowercased() })
        if names.contains("currently reading") { return .currentlyReading }
        if names.contains("to read") || names.contains("wishlist") { return .toRead }
        if names.contains("read but unowned") || dateRead != nil { return .read }
        return .unknown
    }

    /// The publisher of "Beacon Press (2003), Paperback, 264 pages": the text before `(` or `,`;
    /// LibraryThing's "Publisher Unknown" is none.
    static func publisher(_ publication: String) -> String? {
        let name = publication.split(whereSeparator: { $0 == "(" || $0 == "," }).first
            .map { String($0).collapsingSpaces } ?? ""
        return name.isEmpty || name.lowercased() == "publisher unknown" ? nil : name
    }

    /// The page count of "…, Paperback, 264 pages".
    static func pages(_ publication: String) -> Int? {
        for part in publication.split(separator: ",").reversed() {
            let words = part.split(separator: " ")
            if words.count == 2, words[1] == "pages" || words[1] == "p.", let pages = integer(String(words[0])) { return pages }
        }
        return nil
    }

    /// Notes for LibraryThing's ISBN cells: a rounded number or a restored zero. LibraryThing
    /// lists ASINs among ISBNs on purpose, so letters are not noted.
    static func isbnNotes(_ cells: [ISBNCell], line: Int, column: String) -> [RowNote] {
        var seen = Set<RowNote>()
        return cells.filter { $0.damage != .notAnISBN }.compactMap { $0.note(line: line, column: column) }
            .filter { seen.insert($0).inserted }
    }
}
