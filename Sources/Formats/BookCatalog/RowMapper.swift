/// Turns the records of one export format into ``ImportRow``s, column by column.
struct RowMapper {
    let format: ExportFormat
    let table: CSVTable

    /// One cell by column name; empty when the column or the cell is absent.
    private func cell(_ record: CSVTable.Record, _ name: String) -> String {
        guard let index = table.column(name), index < record.fields.count else { return "" }
        return record.fields[index].trimmingSpaces
    }

    private func nonEmpty(_ record: CSVTable.Record, _ name: String) -> String? {
        let value = cell(record, name)
        return value.isEmpty ? nil : value
    }

    /// The row, or the problem that keeps it out.
    func map(_ record: CSVTable.Record) -> Result<ImportRow, RowProblem> {
        if record.fields.count > table.header.count {
            // Trailing empty fields (a trailing comma) are harmless.
            let extra = record.fields[table.header.count...]
            if extra.contains(where: { !$0.trimmingSpaces.isEmpty }) {
                return .failure(.tooManyFields(line: record.line, expected: table.header.count, found: record.fields.count))
            }
        }
        let title = cell(record, "Title")
        guard !title.isEmpty else { return .failure(.missingTitle(line: record.line)) }
        switch format {
        case .goodreads: return .success(goodreads(record, title: title))
        case .libraryThing: return .success(libraryThing(record, title: title))
        case .storyGraph: return .success(storyGraph(record, title: title))
        }
    }

    private func goodreads(_ record: CSVTable.Record, title: String) -> ImportRow {
        var authors = [cell(record, "Author")].filter { !$0.isEmpty }
        authors += Self.list(cell(record, "Additional Authors"), separators: [","])
        let isbn = Self.best([ISBN.parse(cell(record, "ISBN13")), ISBN.parse(cell(record, "ISBN"))])
        let shelves = Self.list(cell(record, "Bookshelves"), separators: [","])
        let exclusive = cell(record, "Exclusive Shelf")
        let user = UserFields(
            rating: Self.rating(cell(record, "My Rating")),
            shelves: shelves.isEmpty && !exclusive.isEmpty ? [exclusive] : shelves,
            status: ReadStatus(exportValue: exclusive),
            dateAdded: ExportDate.day(cell(record, "Date Added")),
            dateRead: ExportDate.day(cell(record, "Date Read")))
        return ImportRow(
            line: record.line, title: title, authors: authors, isbn: isbn,
            sourceID: nonEmpty(record, "Book Id"), publisher: nonEmpty(record, "Publisher"),
            pages: Self.integer(cell(record, "Number of Pages")),
            year: ExportDate.year(cell(record, "Original Publication Year")) ?? ExportDate.year(cell(record, "Year Published")),
            user: user)
    }

    private func libraryThing(_ record: CSVTable.Record, title: String) -> ImportRow {
        var authors = [PersonName.turned(cell(record, "Primary Author"))].filter { !$0.isEmpty }
        authors += Self.list(cell(record, "Secondary Author"), separators: ["|", ";"]).map(PersonName.turned)
        var candidates = [ISBN.parse(cell(record, "ISBN"))]
        candidates += Self.list(ISBN.bracketsRemoved(cell(record, "ISBNs")), separators: [",", " "]).map(ISBN.parse)
        let collections = Self.list(cell(record, "Collections"), separators: [",", "|"]).map { $0.lowercased() }
        let dateRead = ExportDate.day(cell(record, "Date Read"))
        let status: ReadStatus =
            if collections.contains("currently reading") { .currentlyReading }
            else if collections.contains("to read") || collections.contains("wishlist") { .toRead }
            else if collections.contains("read but unowned") || dateRead != nil { .read }
            else { .unknown }
        let user = UserFields(
            rating: Self.rating(cell(record, "Rating")),
            shelves: Self.list(cell(record, "Tags"), separators: [","]),
            status: status,
            dateAdded: ExportDate.day(cell(record, "Entry Date")),
            dateRead: dateRead)
        let publication = cell(record, "Publication")
        let publisher = publication.split(whereSeparator: { $0 == "(" || $0 == "," }).first
            .map { String($0).trimmingSpaces }.flatMap { $0.isEmpty ? nil : $0 }
        return ImportRow(
            line: record.line, title: title, authors: authors, isbn: Self.best(candidates),
            sourceID: nonEmpty(record, "Book Id"), publisher: publisher,
            pages: Self.integer(cell(record, "Page Count")), year: ExportDate.year(cell(record, "Date")),
            user: user)
    }

    private func storyGraph(_ record: CSVTable.Record, title: String) -> ImportRow {
        let authors = Self.list(cell(record, "Authors"), separators: [","])
        let uid = cell(record, "ISBN/UID")
        let cleaned = ISBN.clean(uid)
        let looksLikeISBN = !cleaned.isEmpty && cleaned.dropLast().allSatisfy { $0.isASCII && $0.isNumber }
            && (cleaned.last.map { ($0.isASCII && $0.isNumber) || $0 == "X" } ?? false)
        let user = UserFields(
            rating: Self.rating(cell(record, "Star Rating")),
            shelves: Self.list(cell(record, "Tags"), separators: [","]),
            status: ReadStatus(exportValue: cell(record, "Read Status")),
            dateAdded: ExportDate.day(cell(record, "Date Added")),
            dateRead: ExportDate.day(cell(record, "Last Date Read")))
        return ImportRow(
            line: record.line, title: title, authors: authors,
            isbn: looksLikeISBN ? ISBN.parse(uid) : .missing,
            sourceID: looksLikeISBN || uid.isEmpty ? nil : uid,
            user: user)
    }

    /// The first valid ISBN among `candidates`, else the first invalid one, else missing.
    static func best(_ candidates: [ISBN.Value]) -> ISBN.Value {
        if let valid = candidates.first(where: { $0.isbn13 != nil }) { return valid }
        return candidates.first { $0 != .missing } ?? .missing
    }

    /// A star rating in 0.5…5; 0 (Goodreads' "unrated"), blanks and nonsense are `nil`.
    static func rating(_ text: String) -> Double? {
        guard let value = Double(text.replacingOccurrences(of: ",", with: ".")), value > 0, value <= 5 else { return nil }
        return value
    }

    /// The leading whole number of `text` ("304 pages" → 304), if positive.
    static func integer(_ text: String) -> Int? {
        let digits = text.trimmingSpaces.prefix { $0.isASCII && $0.isNumber }
        guard let value = Int(digits), value > 0 else { return nil }
        return value
    }

    /// The non-empty, trimmed items of a separated list.
    static func list(_ text: String, separators: Set<Character>) -> [String] {
        text.split { separators.contains($0) }.map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
    }
}

extension ISBN {
    /// LibraryThing's `[a, b]` without the brackets.
    static func bracketsRemoved(_ text: String) -> String {
        String(text.filter { $0 != "[" && $0 != "]" })
    }
}
