/// The stable JSON form of a document (documented in `docs/screenplay-format.md`).
///
/// Keys are written in a fixed order: `format`, `titlePage`, `elements`; each element has
/// `type`, `text`, `chapterIndex`, `orderIndex` and, only where they apply, `level`,
/// `sceneNumber`, `name`, `extension`, `dual`. A document with warnings ends with `warnings`
/// (`code`, `message`, `line` when known, `count`); a clean one has no such key. The output
/// decodes with `JSONDecoder` into ``ScreenplayDocument``.
public enum DocumentJSON {
    /// Encodes `document`; `pretty` puts one element per line.
    public static func encode(_ document: ScreenplayDocument, pretty: Bool = true) -> String {
        var out = ""
        out.reserveCapacity(document.elements.count * 96 + 256)
        let nl = pretty ? "\n" : ""
        let ind = pretty ? "  " : ""
        out += "{" + nl + ind + "\"format\": \"" + document.format.rawValue + "\"," + nl
        out += ind + "\"titlePage\": ["
        for (i, entry) in document.titlePage.enumerated() {
            out += (i == 0 ? "" : ",") + nl + ind + ind + "{\"key\": "
            appendString(entry.key, to: &out)
            out += ", \"values\": ["
            for (j, value) in entry.values.enumerated() {
                if j > 0 { out += ", " }
                appendString(value, to: &out)
            }
            out += "]}"
        }
        out += (document.titlePage.isEmpty ? "" : nl + ind) + "]," + nl
        out += ind + "\"elements\": ["
        for (i, e) in document.elements.enumerated() {
            out += (i == 0 ? "" : ",") + nl + ind + ind + "{\"type\": \"" + e.type.rawValue + "\", \"text\": "
            appendString(e.text, to: &out)
            out += ", \"chapterIndex\": \(e.chapterIndex), \"orderIndex\": \(e.orderIndex)"
            if let level = e.level { out += ", \"level\": \(level)" }
            if let v = e.sceneNumber { out += ", \"sceneNumber\": "; appendString(v, to: &out) }
            if let v = e.name { out += ", \"name\": "; appendString(v, to: &out) }
            if let v = e.extension { out += ", \"extension\": "; appendString(v, to: &out) }
            if let v = e.dual { out += ", \"dual\": \(v)" }
            out += "}"
        }
        out += (document.elements.isEmpty ? "" : nl + ind) + "]"
        if !document.warnings.isEmpty {
            out += "," + nl + ind + "\"warnings\": ["
            for (i, w) in document.warnings.enumerated() {
                out += (i == 0 ? "" : ",") + nl + ind + ind + "{\"code\": \"" + w.code.rawValue + "\", \"message\": "
                appendString(w.message, to: &out)
                if let line = w.line { out += ", \"line\": \(line)" }
                out += ", \"count\": \(w.count)}"
            }
            out += nl + ind + "]"
        }
        out += nl + "}" + nl
        return out
    }

    static func appendString(_ s: String, to out: inout String) {
        out += "\""
        var plain = true
        for b in s.utf8 where b < 0x20 || b == 0x22 || b == 0x5C { plain = false; break }
        if plain { out += s; out += "\""; return }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
