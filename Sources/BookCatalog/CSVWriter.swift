/// Writes RFC 4180 CSV: CRLF line ends; a field with a comma, quote, CR or LF is quoted and its
/// quotes doubled. A field starting with `=`, `+`, `-` or `@` gets a leading `'`, so a spreadsheet
/// that opens the export does not run it as a formula.
public enum CSVWriter {
    public static func write(header: [String], rows: [[String]]) -> String {
        ([header] + rows).map { $0.map(field).joined(separator: ",") + "\r\n" }.joined()
    }

    static func field(_ value: String) -> String {
        var text = value
        if let first = text.first, "=+-@".contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
