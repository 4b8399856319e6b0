extension RowMapper {
    /// A StoryGraph row: quarter-star ratings, reading spans in "Dates Read", ASINs and other UIDs
    /// kept as the row's id, spreadsheet damage in `ISBN/UID` noted (a rounded number is never
    /// turned into an ISBN; a lost leading zero is restored only where the checksum proves it).
    func storyGraph(_ record: CSVTable.Record, title: String) -> Mapped {
        let authors = Self.names(Self.list(cell(record, "Authors"), separators: [","]))
        let uid = cell(record, "ISBN/UID")
        let read = ISBNCell(uid)
        let isISBN = read.damage != .notAnISBN && read.value != .missing
        let spans = ExportDate.spans(cell(record, "Dates Read"))
        let dateRead = ExportDate.day(cell(record, "Last Date Read")) ?? spans.last { $0.finished != nil }?.finished
        let started = spans.last { $0.finished == dateRead && $0.started != nil }?.started ?? spans.last?.started
        let user = UserFields(
            rating: Self.rating(cell(record, "Star Rating")),
            shelves: Self.list(cell(record, "Tags"), separators: [","]),
            status: ReadStatus(exportValue: cell(record, "Read Status")),
            dateAdded: ExportDate.day(cell(record, "Date Added")),
            dateRead: dateRead,
            dateStarted: started)
        let row = ImportRow(
            line: record.line, title: title, authors: authors,
            isbn: isISBN ? read.value : .missing,
            sourceID: isISBN || uid.isEmpty ? nil : uid,
            user: user, review: HTMLText.review(cell(record, "Review")))
        let notes = isISBN ? [read.note(line: record.line, column: "ISBN/UID")].compactMap { $0 } : []
        return Mapped(row: row, notes: notes)
    }
}
