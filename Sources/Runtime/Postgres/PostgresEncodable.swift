import Foundation

/// A value that can be sent as a query parameter.
///
/// Parameters travel in PostgreSQL's TEXT format through `PQexecParams`, separately from the SQL,
/// so they are never interpolated into a statement. Cast in SQL where the type is ambiguous
/// (`$1::uuid[]`, `$2::jsonb`, `$3::timestamptz`).
public protocol PostgresEncodable {
    /// The value's PostgreSQL text representation, or `nil` for SQL `NULL`.
    var postgresText: String? { get }
}

extension String: PostgresEncodable {
    /// The string itself.
    public var postgresText: String? { self }
}

extension Substring: PostgresEncodable {
    /// The substring as a string.
    public var postgresText: String? { String(self) }
}

extension Int: PostgresEncodable {
    /// Decimal digits.
    public var postgresText: String? { String(self) }
}

extension Int16: PostgresEncodable {
    /// Decimal digits.
    public var postgresText: String? { String(self) }
}

extension Int32: PostgresEncodable {
    /// Decimal digits.
    public var postgresText: String? { String(self) }
}

extension Int64: PostgresEncodable {
    /// Decimal digits.
    public var postgresText: String? { String(self) }
}

extension Double: PostgresEncodable {
    /// The shortest text that reads back as the same `Double`; `Infinity`, `-Infinity`, `NaN`.
    public var postgresText: String? {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return String(self)
    }
}

extension Float: PostgresEncodable {
    /// The shortest text that reads back as the same `Float`; `Infinity`, `-Infinity`, `NaN`.
    public var postgresText: String? {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return String(self)
    }
}

extension Bool: PostgresEncodable {
    /// `t` or `f`.
    public var postgresText: String? { self ? "t" : "f" }
}

extension UUID: PostgresEncodable {
    /// Lowercase, hyphenated.
    public var postgresText: String? { PostgresUUID.text(self) }
}

extension Date: PostgresEncodable {
    /// ISO 8601 in UTC with microseconds: `2026-11-22 03:00:00.123456+00`.
    public var postgresText: String? { PostgresTimestamp.format(self) }
}

extension Data: PostgresEncodable {
    /// `bytea` hex format: `\x` followed by two lowercase hex digits per byte.
    public var postgresText: String? { PostgresBytea.encode(self) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    /// `nil` (SQL `NULL`) or the wrapped value's text.
    public var postgresText: String? {
        switch self {
        case .none: nil
        case .some(let wrapped): wrapped.postgresText
        }
    }
}

/// Marks encodable values whose text is already an array literal, so that nesting arrays builds a
/// multi-dimensional literal instead of an array of strings.
protocol PostgresArrayLiteralEncodable {}

extension Array: PostgresArrayLiteralEncodable where Element: PostgresEncodable {}

extension Array: PostgresEncodable where Element: PostgresEncodable {
    /// A PostgreSQL array literal: `{"a","b\"c",NULL}`. Every element is double-quoted with `"` and
    /// `\` escaped by a backslash; `nil` elements become `NULL`. Use with a cast such as
    /// `$1::text[]`, `$1::uuid[]`, `$1::jsonb[]`, `$1::int[]`, `$1::timestamptz[]`, typically in
    /// `unnest(...)` for batch statements. Nested arrays become multi-dimensional literals (all
    /// sub-arrays must have the same length).
    public var postgresText: String? {
        let nested = Element.self is any PostgresArrayLiteralEncodable.Type
        var text = "{"
        var first = true
        for element in self {
            if !first { text.append(",") }
            first = false
            guard let value = element.postgresText else {
                text.append("NULL")
                continue
            }
            if nested {
                text.append(value)
                continue
            }
            text.append("\"")
            for character in value.unicodeScalars {
                if character == "\"" || character == "\\" { text.unicodeScalars.append("\\") }
                text.unicodeScalars.append(character)
            }
            text.append("\"")
        }
        text.append("}")
        return text
    }
}

/// A `json`/`jsonb` parameter: UTF-8 JSON text.
public struct PostgresJSON: PostgresEncodable, Sendable, Hashable {
    /// The UTF-8 encoded JSON document.
    public var data: Data

    /// Wraps already-encoded JSON.
    public init(_ data: Data) {
        self.data = data
    }

    /// Encodes `value` with a `JSONEncoder` (sorted keys, so equal values give equal text).
    public init<T: Encodable>(encoding value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        self.data = try encoder.encode(value)
    }

    /// The JSON text.
    public var postgresText: String? { String(decoding: data, as: UTF8.self) }
}

enum PostgresBytea {
    /// Lowercase hex digits by value.
    static let hexDigits = Array("0123456789abcdef".utf8)

    static func encode(_ data: Data) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(2 + data.count * 2)
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(UInt8(ascii: "x"))
        for byte in data {
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes the hex output format (`\x0a1b`); returns nil for anything else.
    static func decode(_ text: String) -> Data? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            return nil
        }
        var data = Data(capacity: (utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    /// A hex digit's value, in either case.
    static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
