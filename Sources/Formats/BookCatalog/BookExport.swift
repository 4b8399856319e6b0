/// An export read whole: its format and variant, the books (rows merged), the rows it could not
/// import, and the notes on rows it imported after repairing them.
public struct BookExport: Sendable, Hashable {
    public var format: ExportFormat
    /// The shape that was read: which header, which separator, or JSON.
    public var variant: ExportVariant
    /// Every imported row, in file order.
    public var rows: [ImportRow]
    /// The books: rows grouped by ``BookDeduplicator``.
    public var books: [BookGroup]
    /// Rows left out, with their line numbers.
    public var problems: [RowProblem]
    /// Rows imported after a repair, or with a doubt: bytes that were not UTF-8, spreadsheet
    /// damage and junk in ISBN cells. In line order; not errors.
    public var notes: [RowNote]

    /// Rows merged into another row's book.
    public var mergedRowCount: Int { books.reduce(0) { $0 + $1.merges.count } }
    /// Rows whose ISBN is not valid (kept and flagged).
    public var invalidISBNCount: Int { rows.filter { if case .invalid = $0.isbn { true } else { false } }.count }

    /// Reads an export: a CSV or tab-separated file with a known header, or LibraryThing's JSON.
    /// `format` `nil` detects it.
    ///
    /// Throws when the file is not text, not an export of a known format (or of the named one), or
    /// holds no rows at all; single bad rows are ``problems`` instead, and rows read after a repair
    /// are kept with ``notes``.
    public static func read(_ bytes: [UInt8], format: ExportFormat? = nil,
                            maxBytes: Int = CSVReader.defaultMaxBytes) throws(ExportReadError) -> BookExport {
        let text: String
        let repairs: [TextRepair]
        do { (text, repairs) = try CSVReader.decode(bytes, maxBytes: maxBytes) } catch { throw .csv(error) }
        if LibraryThingJSON.looksLikeJSON(text) { return try readJSON(text, repairs: repairs, format: format) }

        var table: CSVTable
        do { table = try CSVReader.table(text, repairs: repairs) } catch { throw .csv(error) }
        table.header = table.header.map(ExportFormat.columnName)
        guard let variant = ExportVariant.detect(header: table.header, delimiter: table.delimiter, format: format) else {
            if let format {
                let names = Set(table.header.map { $0.lowercased() })
                throw .format(.missingColumns(format: format,
                                              missing: format.requiredColumns.filter { !names.contains($0.lowercased()) }))
            }
            throw .format(.unknownColumns(columns: table.header))
        }
        guard !table.records.isEmpty else { throw .noRows }
        let mapper = RowMapper(variant: variant, table: table)
        var rows: [ImportRow] = []
        var problems: [RowProblem] = []
        var notes: [RowNote] = []
        for record in table.records {
            switch mapper.map(record) {
            case let .success(mapped):
                rows.append(mapped.row)
                notes += mapped.notes
            case let .failure(problem):
                problems.append(problem)
            }
        }
        notes += repairNotes(repairs, rowLines: table.records.map(\.line))
        return BookExport(format: variant.format, variant: variant, rows: rows, books: BookDeduplicator.group(rows),
                          problems: problems, notes: sorted(notes))
    }

    private static func readJSON(_ text: String, repairs: [TextRepair], format: ExportFormat?) throws(ExportReadError) -> BookExport {
        if let format, format != .libraryThing {
            throw .format(.missingColumns(format: format, missing: format.requiredColumns))
        }
        let read: LibraryThingJSON.Read
        do { read = try LibraryThingJSON.read(text) } catch { throw .json(error) }
        let notes = read.notes + repairNotes(repairs, rowLines: read.lines.sorted())
        return BookExport(format: .libraryThing, variant: .libraryThingJSON, rows: read.rows,
                          books: BookDeduplicator.group(read.rows), problems: read.problems, notes: sorted(notes))
    }

    /// One note per row (and reading) with repaired bytes: a repair belongs to the last row that
    /// starts on or before its line; before the first row, to the header (line 1).
    static func repairNotes(_ repairs: [TextRepair], rowLines: [Int]) -> [RowNote] {
        var notes: [RowNote] = []
        var seen = Set<RowNote>()
        for repair in repairs {
            var low = 0, high = rowLines.count // the first row starting after the repair's line
            while low < high {
                let middle = low + (high - low) / 2
                if rowLines[middle] <= repair.line { low = middle + 1 } else { high = middle }
            }
            let note = RowNote.textRepaired(line: low == 0 ? 1 : rowLines[low - 1], reading: repair.reading)
            if seen.insert(note).inserted { notes.append(note) }
        }
        return notes
    }

    private static func sorted(_ notes: [RowNote]) -> [RowNote] {
        notes.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
    }
}

/// Why an export could not be imported at all (nothing is created).
public enum ExportReadError: Error, Sendable, Hashable, CustomStringConvertible {
    case csv(CSVError)
    case format(ExportFormatError)
    /// JSON that is not LibraryThing's export.
    case json(ExportJSONError)
    /// The header is an export's, but no row follows.
    case noRows

    public var description: String {
        switch self {
        case let .csv(error): error.description
        case let .format(error): error.description
        case let .json(error): error.description
        case .noRows: "empty export: a header row and no books"
        }
    }
}
