import Foundation

/// A JSON value read without loss: numbers keep their literal text, so a value read from a
/// provider's answer and written again is the same number, whatever its size or precision
/// (`JSONSerialization` and `JSONDecoder` turn `12345678901234567890` or `1e400` into a
/// rounded `Double`). The vision wire formats use it to carry a caller's JSON Schema into a
/// request and a model's structured answer out of a response.
///
/// Reading is strict RFC 8259 (``parse(_:)``): valid UTF-8, no lone surrogates, no duplicate
/// keys, no trailing text, at most ``maxDepth`` levels of nesting, so no input can exhaust the
/// stack. Writing (``encoded()``) sorts object keys by code point and escapes only what JSON
/// requires.
enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, as its literal text (validated against JSON's number grammar).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The deepest nesting of arrays and objects accepted.
    static let maxDepth = 128

    /// Why bytes are not one JSON value; `offset` is where reading stopped.
    struct ParseError: Error, Equatable, CustomStringConvertible {
        var reason: String
        var offset: Int
        var description: String { "\(reason) at byte \(offset)" }
    }

    /// The one JSON value of `bytes` (surrounding whitespace allowed).
    static func parse(_ bytes: Data) throws(ParseError) -> JSONValue {
        var reader = JSONReader(bytes: Array(bytes))
        return try reader.document()
    }

    /// The object's members, or nil when this is not an object.
    var object: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The array's elements, or nil when this is not an array.
    var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The string, or nil when this is not a string.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The number as an `Int` when its literal is a plain integer that fits, else nil (a
    /// fraction, an exponent or an overflow is never rounded into an integer).
    var exactInt: Int? {
        guard case .number(let literal) = self else { return nil }
        return Int(literal)
    }

    /// The value as compact JSON text with sorted keys.
    func encoded() -> Data {
        var out: [UInt8] = []
        write(into: &out)
        return Data(out)
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .number(let literal): out += Array(literal.utf8)
        case .string(let text): Self.writeString(text, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                members[key]?.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string literal: `"` and `\` escaped, control characters as `\n`, `\t`… or `\u00XX`;
    /// everything else as its UTF-8 bytes (a byte ≥ 0x80 is never a quote or a control).
    static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (base64 images above all) need no escape: copied whole.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            out.append(contentsOf: text.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        let hex = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x00..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    init(stringLiteral value: String) {
        self = .string(value)
    }
}
