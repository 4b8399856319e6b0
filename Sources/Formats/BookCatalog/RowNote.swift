/// Something the reader repaired or doubted in a row it *imported*: the row is kept, and the note
/// says where it may differ from what the file holds. (A row left out is a ``RowProblem``.)
public enum RowNote: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Bytes of the row were not UTF-8 and were read as MARC-8 diacritics or Latin-1
    /// (``TextRepair``). `line` 1 is the header.
    case textRepaired(line: Int, reading: TextRepair.Reading)
    /// The ISBN cell holds a number a spreadsheet rewrote (`9.78053E+12`): its digits are lost, so
    /// it is kept as an invalid ISBN, never guessed.
    case spreadsheetNumber(line: Int, column: String, text: String)
    /// The ISBN-10 had lost its leading zero (`441172717`, as a spreadsheet writes a number); the
    /// zero is restored because the checksum proves it.
    case leadingZeroRestored(line: Int, column: String, text: String, isbn13: String)
    /// The ISBN cell holds text that is no ISBN (a name, a word): the row has no ISBN from it.
    case notAnISBN(line: Int, column: String, text: String)

    /// The 1-based line the row starts on.
    public var line: Int {
        switch self {
        case let .textRepaired(line, _), let .spreadsheetNumber(line, _, _), let .leadingZeroRestored(line, _, _, _),
             let .notAnISBN(line, _, _): line
        }
    }

    public var description: String {
        switch self {
        case let .textRepaired(line, reading):
            "line \(line): bytes that are not UTF-8 read as \(reading == .marc8 ? "MARC-8 diacritics" : "Latin-1")"
        case let .spreadsheetNumber(line, column, text):
            "line \(line): \(column) \"\(text)\" is a number a spreadsheet rounded; its digits are lost (kept as invalid)"
        case let .leadingZeroRestored(line, column, text, isbn13):
            "line \(line): \(column) \"\(text)\" lost its leading zero; the checksum proves \(isbn13)"
        case let .notAnISBN(line, column, text):
            "line \(line): \(column) \"\(text)\" is not an ISBN; ignored"
        }
    }
}
