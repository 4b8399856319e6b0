import TextEscaping
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
            JSONString.append(entry.key, to: &out)
            out += ", \"values\": ["
            for (j, value) in entry.values.enumerated() {
                if j > 0 { out += ", " }
                JSONString.append(value, to: &out)
            }
            out += "]}"
        }
        out += (document.titlePage.isEmpty ? "" : nl + ind) + "]," + nl
        out += ind + "\"elements\": ["
        for (i, e) in document.elements.enumerated() {
            out += (i == 0 ? "" : ",") + nl + ind + ind + "{\"type\": \"" + e.type.rawValue + "\", \"text\": "
            JSONString.append(e.text, to: &out)
            out += ", \"chapterIndex\": \(e.chapterIndex), \"orderIndex\": \(e.orderIndex)"
            if let level = e.level { out += ", \"level\": \(level)" }
            if let v = e.sceneNumber { out += ", \"sceneNumber\": "; JSONString.append(v, to: &out) }
            if let v = e.name { out += ", \"name\": "; JSONString.append(v, to: &out) }
            if let v = e.extension { out += ", \"extension\": "; JSONString.append(v, to: &out) }
            if let v = e.dual { out += ", \"dual\": \(v)" }
            out += "}"
        }
        out += (document.elements.isEmpty ? "" : nl + ind) + "]"
        if !document.warnings.isEmpty {
            out += "," + nl + ind + "\"warnings\": ["
            for (i, w) in document.warnings.enumerated() {
                out += (i == 0 ? "" : ",") + nl + ind + ind + "{\"code\": \"" + w.code.rawValue + "\", \"message\": "
                JSONString.append(w.message, to: &out)
                if let line = w.line { out += ", \"line\": \(line)" }
                out += ", \"count\": \(w.count)}"
            }
            out += nl + ind + "]"
        }
        out += nl + "}" + nl
        return out
    }
}
