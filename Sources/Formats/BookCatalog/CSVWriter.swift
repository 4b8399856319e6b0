/// Writes RFC 4180 CSV: CRLF line ends; a field with a comma, quote, CR or LF is quoted and its
/// quotes doubled. A field starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
/// leading `'`, so a spreadsheet that opens the export does not run it as a formula (OWASP's list:
/// some spreadsheets skip a leading tab or CR and read the formula after it).
public enum CSVWriter {
    public static func write(header: [String], rows: [[String]]) -> String {
        ([header] + rows).map { $0.map(field).joined(separator: ",") + "\r\n" }.joined()
    }

    /// First characters a spreadsheet may take for the start of a formula.
    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    static func field(_ value: String) -> String {
        var text = value
        // By scalar: "\r\n" is one Character, and it starts with CR too.
        if let first = text.unicodeScalars.first, Self.formulaStarts.contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
