/// An export read whole: its format, the books (rows merged), and the rows it could not import.
public struct BookExport: Sendable, Hashable {
    public var format: ExportFormat
    /// Every imported row, in file order.
    public var rows: [ImportRow]
    /// The books: rows grouped by ``BookDeduplicator``.
    public var books: [BookGroup]
    /// Rows left out, with their line numbers.
    public var problems: [RowProblem]

    /// Rows merged into another row's book.
    public var mergedRowCount: Int { books.reduce(0) { $0 + $1.merges.count } }
    /// Rows whose ISBN is not valid (kept and flagged).
    public var invalidISBNCount: Int { rows.filter { if case .invalid = $0.isbn { true } else { false } }.count }

    /// Reads an export. `format` `nil` detects it from the header row.
    ///
    /// Throws when the file is not a CSV, not an export of a known format (or of the named one),
    /// or holds no rows at all; single bad rows are ``problems`` instead.
    public static func read(_ bytes: [UInt8], format: ExportFormat? = nil,
                            maxBytes: Int = CSVReader.defaultMaxBytes) throws(ExportReadError) -> BookExport {
        let table: CSVTable
        do { table = try CSVReader.read(bytes, maxBytes: maxBytes) } catch { throw .csv(error) }
        let chosen: ExportFormat
        if let format {
            guard format.matches(header: table.header) else {
                let names = Set(table.header.map { $0.lowercased() })
                throw .format(.missingColumns(format: format,
                                              missing: format.requiredColumns.filter { !names.contains($0.lowercased()) }))
            }
            chosen = format
        } else {
            guard let detected = ExportFormat.detect(header: table.header) else {
                throw .format(.unknownColumns(columns: table.header))
            }
            chosen = detected
        }
        guard !table.records.isEmpty else { throw .noRows }
        let mapper = RowMapper(format: chosen, table: table)
        var rows: [ImportRow] = []
        var problems: [RowProblem] = []
        for record in table.records {
            switch mapper.map(record) {
            case let .success(row): rows.append(row)
            case let .failure(problem): problems.append(problem)
            }
        }
        return BookExport(format: chosen, rows: rows, books: BookDeduplicator.group(rows), problems: problems)
    }
}

/// Why an export could not be imported at all (nothing is created).
public enum ExportReadError: Error, Sendable, Hashable, CustomStringConvertible {
    case csv(CSVError)
    case format(ExportFormatError)
    /// The header is an export's, but no row follows.
    case noRows

    public var description: String {
        switch self {
        case let .csv(error): error.description
        case let .format(error): error.description
        case .noRows: "empty export: a header row and no books"
        }
    }
}
