/// JSON string literals written by hand (the log handler and the parse output build JSON as text,
/// which is several times faster than going through `JSONEncoder`).
public enum JSONString {
    /// Appends `text` as a JSON string literal: RFC 8259 escapes, other control characters as
    /// `\u00XX`, everything else as is (UTF-8 output needs no `\u` escapes for non-ASCII).
    public static func append(_ text: String, to out: inout String) {
        out += "\""
        if text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            ScalarEscaping.append(text, to: &out) { scalar in
                switch scalar {
                case "\"": return "\\\""
                case "\\": return "\\\\"
                case "\n": return "\\n"
                case "\r": return "\\r"
                case "\t": return "\\t"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: return nil
                }
            }
        } else {
            out += text
        }
        out += "\""
    }
}

/// XML 1.0 character data and attribute values.
public enum XMLText {
    /// `text` with `& < > "` and tab, CR, LF as references; the characters XML 1.0 cannot carry at
    /// all, not even as references (other C0 controls, U+FFFE, U+FFFF), are dropped.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        ScalarEscaping.append(text, to: &out) { scalar in
            switch scalar {
            case "&": return "&amp;"
            case "<": return "&lt;"
            case ">": return "&gt;"
            case "\"": return "&quot;"
            case "\n": return "&#10;"
            case "\r": return "&#13;"
            case "\t": return "&#9;"
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: return ""
            default: return nil
            }
        }
        return out
    }
}

enum ScalarEscaping {
    /// Appends `text`, each scalar replaced by what `replacement` returns for it (nil: itself).
    static func append(_ text: String, to out: inout String, _ replacement: (Unicode.Scalar) -> String?) {
        for scalar in text.unicodeScalars {
            if let replaced = replacement(scalar) { out += replaced } else { out.unicodeScalars.append(scalar) }
        }
    }
}
