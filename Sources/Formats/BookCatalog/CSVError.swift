/// Why a file could not be read as a CSV export at all. A file that fails this way creates nothing;
/// problems with single rows are ``RowProblem``s instead, and the rest of the file imports.
public enum CSVError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file has no bytes, or only whitespace and a byte-order mark.
    case empty
    /// The file is larger than the limit (``CSVReader/defaultMaxBytes`` unless the caller set one).
    case tooLarge(size: Int, limit: Int)
    /// The file contains a NUL byte or mostly control bytes: a binary file, not text.
    case binary(offset: Int)
    /// Too many bytes of the file are not UTF-8 (more than one in twenty) for it to be text; `offset`
    /// is the first. A few such bytes are read instead (``TextRepair``).
    case invalidUTF8(offset: Int)
    /// A quoted field opened on `line` is never closed before the end of the file.
    case unterminatedQuote(line: Int)
    /// After a quoted field's closing quote on `line` comes something other than a comma or a line end.
    case textAfterClosingQuote(line: Int)
    /// The first row has no column names (it is empty or its names are all blank).
    case noHeader
    /// The header names the same column twice (`name`), so its rows cannot be read by name.
    case duplicateColumn(name: String)

    public var description: String {
        switch self {
        case .empty: "empty file: no header row and no books"
        case let .tooLarge(size, limit): "file too large: \(size) bytes exceeds the limit of \(limit) bytes"
        case let .binary(offset): "not a CSV file: binary content (NUL or control bytes near byte \(offset))"
        case let .invalidUTF8(offset): "not a CSV file: invalid UTF-8 at byte \(offset), and too much of it to be text"
        case let .unterminatedQuote(line): "malformed CSV: the quoted field opened on line \(line) is never closed"
        case let .textAfterClosingQuote(line): "malformed CSV: text after a closing quote on line \(line)"
        case .noHeader: "not a CSV export: the first row has no column names"
        case let .duplicateColumn(name): "malformed CSV: the header names the column \"\(name)\" twice"
        }
    }
}
