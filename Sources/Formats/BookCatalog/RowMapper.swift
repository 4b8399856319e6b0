/// Turns the records of one export variant into ``ImportRow``s, column by column, with the notes
/// of what was repaired on the way.
struct RowMapper {
    /// A row read, and what was repaired or doubted in it.
    struct Mapped {
        var row: ImportRow
        var notes: [RowNote]
    }

    let variant: ExportVariant
    let table: CSVTable

    /// One cell by column name; empty when the column or the cell is absent.
    func cell(_ record: CSVTable.Record, _ name: String) -> String {
        guard let index = table.column(name), index < record.fields.count else { return "" }
        return record.fields[index].trimmingSpaces
    }

    func nonEmpty(_ record: CSVTable.Record, _ name: String) -> String? {
        let value = cell(record, name)
        return value.isEmpty ? nil : value
    }

    /// The row, or the problem that keeps it out.
    func map(_ record: CSVTable.Record) -> Result<Mapped, RowProblem> {
        if record.fields.count > table.header.count {
            // Trailing empty fields (a trailing comma) are harmless.
            let extra = record.fields[table.header.count...]
            if extra.contains(where: { !$0.trimmingSpaces.isEmpty }) {
                return .failure(.tooManyFields(line: record.line, expected: table.header.count, found: record.fields.count))
            }
        }
        let title = cell(record, "Title").collapsingSpaces
        guard !title.isEmpty else { return .failure(.missingTitle(line: record.line)) }
        switch variant {
        case .goodreads31, .goodreads24, .goodreads23: return .success(goodreads(record, title: title))
        case .libraryThingCSV, .libraryThingTSV, .libraryThingJSON: return .success(libraryThing(record, title: title))
        case .libraryThing2014: return .success(libraryThing2014(record, title: title))
        case .storyGraph: return .success(storyGraph(record, title: title))
        }
    }

    /// The ISBN cells of `columns` read, the best value among them, and the notes of their damage.
    func isbn(_ record: CSVTable.Record, columns: [String], noteLetters: Bool = true) -> (ISBN.Value, [RowNote]) {
        var values: [ISBN.Value] = []
        var notes: [RowNote] = []
        for column in columns {
            let read = ISBNCell(cell(record, column))
            values.append(read.value)
            if read.damage == .notAnISBN && !noteLetters { continue }
            if let note = read.note(line: record.line, column: column) { notes.append(note) }
        }
        return (Self.best(values), notes)
    }

    /// The first valid ISBN among `candidates`, else the first invalid one, else missing.
    static func best(_ candidates: [ISBN.Value]) -> ISBN.Value {
        if let valid = candidates.first(where: { $0.isbn13 != nil }) { return valid }
        return candidates.first { $0 != .missing } ?? .missing
    }

    /// A star rating in 0.25…5 in quarter steps; 0 (Goodreads' "unrated"), blanks and anything
    /// else (3.3, `nan`, 7) are `nil`.
    static func rating(_ text: String) -> Double? {
        let trimmed = text.trimmingSpaces.replacingOccurrences(of: ",", with: ".")
        guard !trimmed.isEmpty, trimmed.allSatisfy({ ($0.isASCII && $0.isNumber) || $0 == "." }),
              let value = Double(trimmed) else { return nil }
        return rating(value)
    }

    /// A star rating in 0.25…5 in quarter steps, else `nil`.
    static func rating(_ value: Double) -> Double? {
        guard value.isFinite, value > 0, value <= 5, (value * 4).rounded() == value * 4 else { return nil }
        return value
    }

    /// The leading whole number of `text` ("304 pages" → 304), if positive; longer than any book, nil.
    static func integer(_ text: String) -> Int? {
        let digits = text.trimmingSpaces.prefix { $0.isASCII && $0.isNumber }
        guard digits.count <= 9, let value = Int(digits), value > 0 else { return nil }
        return value
    }

    /// The non-empty, trimmed items of a separated list.
    static func list(_ text: String, separators: Set<Character>) -> [String] {
        text.split { separators.contains($0) }.map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
    }

    /// Author names with runs of spaces made one, empty ones dropped, each named once.
    static func names(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.map(\.collapsingSpaces).filter { !$0.isEmpty && seen.insert($0.lowercased()).inserted }
    }
}

extension ISBN {
    /// LibraryThing's `[a, b]` without the brackets.
    static func bracketsRemoved(_ text: String) -> String {
        String(text.filter { $0 != "[" && $0 != "]" })
    }
}
