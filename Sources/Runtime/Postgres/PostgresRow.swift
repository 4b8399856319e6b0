import Foundation

/// One row of a ``PostgresResult``: the text form of each column, `nil` for SQL `NULL`.
///
/// Typed accessors return `nil` for `NULL`, for an unknown column, and for text that does not
/// parse as the requested type.
public struct PostgresRow: Sendable {
    let columnIndex: PostgresColumnIndex
    /// The raw text values, in column order.
    public let values: [String?]

    init(columnIndex: PostgresColumnIndex, values: [String?]) {
        self.columnIndex = columnIndex
        self.values = values
    }

    /// Column names, in order.
    public var columns: [String] { columnIndex.names }

    /// The text of the column at `column` (0-based), or nil for NULL or an out-of-range index.
    public subscript(column: Int) -> String? {
        values.indices.contains(column) ? values[column] : nil
    }

    /// The text of the first column named `column`, or nil for NULL or an unknown name.
    public subscript(column: String) -> String? {
        guard let position = columnIndex.positions[column] else { return nil }
        return values[position]
    }

    /// True when the row has a column with this name.
    public func contains(_ column: String) -> Bool { columnIndex.positions[column] != nil }

    /// The column's text.
    public func string(_ column: String) -> String? { self[column] }

    /// The column as `Int` (int2/int4/int8 text).
    public func int(_ column: String) -> Int? { self[column].flatMap { Int($0) } }

    /// The column as `Int64`.
    public func int64(_ column: String) -> Int64? { self[column].flatMap { Int64($0) } }

    /// The column as `Int32`.
    public func int32(_ column: String) -> Int32? { self[column].flatMap { Int32($0) } }

    /// The column as `Double` (float4/float8/numeric text, including `Infinity`, `-Infinity`, `NaN`).
    public func double(_ column: String) -> Double? {
        guard let text = self[column] else { return nil }
        switch text {
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        case "NaN": return .nan
        default: return Double(text)
        }
    }

    /// The column as `Bool` (`t`/`f`, also `true`/`false`).
    public func bool(_ column: String) -> Bool? {
        switch self[column] {
        case "t", "true": true
        case "f", "false": false
        default: nil
        }
    }

    /// The column as `UUID`.
    public func uuid(_ column: String) -> UUID? { self[column].flatMap(PostgresUUID.parse) }

    /// The column as `Date`: parses `timestamptz`/`timestamp`/`date` text in the ISO DateStyle,
    /// with or without fractional seconds, with `+00`, `+00:00`, `Z` or no offset (taken as UTC).
    public func date(_ column: String) -> Date? { self[column].flatMap { PostgresTimestamp.parse($0) } }

    /// The column as `Data`, from `bytea` hex output (`\x…`).
    public func data(_ column: String) -> Data? { self[column].flatMap { PostgresBytea.decode($0) } }

    /// Decodes a `json`/`jsonb` column with a `JSONDecoder`; nil for NULL or an unknown column.
    /// - Throws: the decoder's error when the JSON does not match `type`.
    public func json<T: Decodable>(_ column: String, as type: T.Type = T.self) throws -> T? {
        guard let text = self[column] else { return nil }
        return try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }
}
