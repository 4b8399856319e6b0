/// The top level of a JSON text: the line each member (an object's key, an array's element)
/// starts on, in file order, which `JSONSerialization` does not keep. Checks the nesting depth
/// before anything recursive reads the text.
enum JSONOutline {
    /// Deeper than any export: LibraryThing's books are four levels deep.
    static let maxDepth = 64

    /// A top-level member: its key (`nil` for an array element) and the line it starts on.
    struct Member: Equatable {
        var key: String?
        var line: Int
    }

    /// The members of the top-level object or array; throws when brackets or strings do not
    /// close or nest too deep.
    static func members(of text: String) throws(ExportJSONError) -> [Member] {
        var members: [Member] = []
        var depth = 0
        var line = 1
        var inString = false
        var escaped = false
        var expectingMember = false
        var topIsObject = false
        var key: String.UnicodeScalarView?
        var keyLine = 1
        var previous: Unicode.Scalar = " "
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            if scalar == "\r" || (scalar == "\n" && previous != "\r") { line += 1 }
            if inString {
                if escaped {
                    escaped = false
                    key?.append(scalar)
                } else if scalar == "\\" {
                    escaped = true
                    key?.append(scalar)
                } else if scalar == "\"" {
                    inString = false
                    if let raw = key { members.append(Member(key: unescaped(String(raw)), line: keyLine)) }
                    key = nil
                } else {
                    key?.append(scalar)
                }
                continue
            }
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" { continue }
            if depth == 1 && expectingMember && scalar != "}" && scalar != "]" {
                expectingMember = false
                if topIsObject {
                    guard scalar == "\"" else { throw .malformed }
                    key = String.UnicodeScalarView()
                    keyLine = line
                } else {
                    members.append(Member(key: nil, line: line))
                }
            }
            switch scalar {
            case "\"":
                inString = true
            case "{", "[":
                depth += 1
                guard depth <= maxDepth else { throw .tooDeep(limit: maxDepth) }
                if depth == 1 {
                    topIsObject = scalar == "{"
                    expectingMember = true
                }
            case "}", "]":
                depth -= 1
                guard depth >= 0 else { throw .malformed }
            case "," where depth == 1:
                expectingMember = true
            default:
                break
            }
        }
        guard depth == 0, !inString else { throw .malformed }
        return members
    }

    /// A JSON string's content with its escapes decoded; as written when an escape is broken.
    static func unescaped(_ raw: String) -> String {
        guard raw.contains("\\") else { return raw }
        var result = String.UnicodeScalarView()
        var scalars = raw.unicodeScalars.makeIterator()
        var pendingHigh: UInt32?
        while let scalar = scalars.next() {
            guard scalar == "\\" else { result.append(scalar); continue }
            guard let escape = scalars.next() else { return raw }
            switch escape {
            case "\"", "\\", "/": result.append(escape)
            case "b": result.append("\u{08}")
            case "f": result.append("\u{0C}")
            case "n": result.append("\n")
            case "r": result.append("\r")
            case "t": result.append("\t")
            case "u":
                var hex = ""
                for _ in 0..<4 { guard let digit = scalars.next() else { return raw }; hex.unicodeScalars.append(digit) }
                guard let unit = UInt32(hex, radix: 16) else { return raw }
                if (0xD800...0xDBFF).contains(unit) { pendingHigh = unit; continue }
                var value = unit
                if (0xDC00...0xDFFF).contains(unit), let high = pendingHigh { value = 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00) }
                pendingHigh = nil
                guard let decoded = Unicode.Scalar(value) else { return raw }
                result.append(decoded)
            default: return raw
            }
        }
        return String(result)
    }
}
