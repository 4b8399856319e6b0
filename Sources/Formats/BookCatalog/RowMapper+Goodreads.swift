extension RowMapper {
    /// A Goodreads row (any of the three headers): `="…"` ISBNs, `=""""` for none, junk in the
    /// ISBN cells noted, `<br/>` in reviews, runs of spaces in names.
    func goodreads(_ record: CSVTable.Record, title: String) -> Mapped {
        let author = cell(record, "Author").isEmpty ? PersonName.turned(cell(record, "Author l-f")) : cell(record, "Author")
        let authors = Self.names([author] + Self.list(cell(record, "Additional Authors"), separators: [","]))
        let (isbn, notes) = self.isbn(record, columns: ["ISBN13", "ISBN"])
        let shelves = Self.list(cell(record, "Bookshelves"), separators: [","])
        let exclusive = cell(record, "Exclusive Shelf")
        let user = UserFields(
            rating: Self.rating(cell(record, "My Rating")),
            shelves: shelves.isEmpty && !exclusive.isEmpty ? [exclusive] : shelves,
            status: ReadStatus(exportValue: exclusive),
            dateAdded: ExportDate.day(cell(record, "Date Added")),
            dateRead: ExportDate.day(cell(record, "Date Read")))
        let row = ImportRow(
            line: record.line, title: title, authors: authors, isbn: isbn,
            sourceID: nonEmpty(record, "Book Id"), publisher: nonEmpty(record, "Publisher")?.collapsingSpaces,
            pages: Self.integer(cell(record, "Number of Pages")),
            year: ExportDate.year(cell(record, "Original Publication Year")) ?? ExportDate.year(cell(record, "Year Published")),
            user: user, review: HTMLText.review(cell(record, "My Review")))
        return Mapped(row: row, notes: notes)
    }
}
