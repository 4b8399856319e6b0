/// Reads one ``JSONValue`` from bytes, strictly (RFC 8259). Every index is checked before it is
/// read and nesting is bounded by ``JSONValue/maxDepth``, so hostile bytes end in a
/// ``JSONValue/ParseError``, never a trap.
struct JSONReader {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    typealias ParseError = JSONValue.ParseError

    /// The whole input as one value, with nothing but whitespace after it.
    mutating func document() throws(ParseError) -> JSONValue {
        let value = try self.value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw failure("text after the value") }
        return value
    }

    private func failure(_ reason: String) -> ParseError {
        ParseError(reason: reason, offset: index)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ literal: String) throws(ParseError) {
        for byte in literal.utf8 {
            guard current == byte else { throw failure("expected '\(literal)'") }
            index += 1
        }
    }

    private mutating func value(depth: Int) throws(ParseError) -> JSONValue {
        skipWhitespace()
        guard let byte = current else { throw failure("unexpected end") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected character")
        }
    }

    private mutating func object(depth: Int) throws(ParseError) -> JSONValue {
        guard depth <= JSONValue.maxDepth else { throw failure("nested deeper than \(JSONValue.maxDepth)") }
        index += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let keyOffset = index
            let key = try string()
            skipWhitespace()
            try expect(":")
            let member = try value(depth: depth)
            guard members.updateValue(member, forKey: key) == nil else {
                throw ParseError(reason: "duplicate key", offset: keyOffset)
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(ParseError) -> JSONValue {
        guard depth <= JSONValue.maxDepth else { throw failure("nested deeper than \(JSONValue.maxDepth)") }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, returned as its text.
    private mutating func number() throws(ParseError) -> String {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw failure("expected a digit") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let digit = current, isDigit(digit) else { throw failure("expected a digit after '.'") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, isDigit(digit) else { throw failure("expected a digit in the exponent") }
            skipDigits()
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)  // ASCII only: exact
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }

    /// A string literal (the opening quote at `index`), unescaped; its raw bytes must be UTF-8.
    private mutating func string() throws(ParseError) -> String {
        index += 1  // "
        var scalars = String.UnicodeScalarView()
        var runStart = index
        let source = bytes
        func flush(upTo end: Int) throws(ParseError) {
            guard runStart < end else { return }
            guard let run = String(validating: source[runStart..<end], as: UTF8.self) else {
                throw ParseError(reason: "invalid UTF-8", offset: runStart)
            }
            scalars.append(contentsOf: run.unicodeScalars)
        }
        while true {
            guard let byte = current else { throw failure("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                try flush(upTo: index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush(upTo: index)
                index += 1
                scalars.append(try escape())
                runStart = index
            case 0x00..<0x20:
                throw failure("control character in a string")
            default:
                index += 1
            }
        }
    }

    /// The character after a backslash (`index` just past it).
    private mutating func escape() throws(ParseError) -> Unicode.Scalar {
        guard let byte = current else { throw failure("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hex4()
            if (0xD800..<0xDC00).contains(unit) {
                guard current == UInt8(ascii: "\\") else { throw failure("lone surrogate") }
                index += 1
                guard current == UInt8(ascii: "u") else { throw failure("lone surrogate") }
                index += 1
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("lone surrogate") }
                let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw failure("invalid escape") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(UInt32(unit)) else { throw failure("lone surrogate") }
            return scalar
        default:
            throw failure("invalid escape")
        }
    }

    private mutating func hex4() throws(ParseError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw failure("unterminated escape") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}
