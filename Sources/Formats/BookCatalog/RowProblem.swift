/// A row that could not be imported; the rest of the file imports.
public enum RowProblem: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The row has no title.
    case missingTitle(line: Int)
    /// The row has more fields than the header has columns.
    case tooManyFields(line: Int, expected: Int, found: Int)

    /// The 1-based line the row starts on.
    public var line: Int {
        switch self {
        case let .missingTitle(line), let .tooManyFields(line, _, _): line
        }
    }

    public var description: String {
        switch self {
        case let .missingTitle(line): "line \(line): no title; row skipped"
        case let .tooManyFields(line, expected, found):
            "line \(line): \(found) fields where the header has \(expected) columns; row skipped"
        }
    }
}
