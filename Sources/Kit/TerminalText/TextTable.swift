import TextEscaping

/// The CLI's aligned text tables: columns padded to their widest cell, two spaces apart, no
/// trailing spaces, a newline after every line. Cells are printed through ``TerminalSafe/clean(_:)``:
/// they hold job errors and book fields from outside.
public enum TextTable {
    public static func render(header: [String], rows: [[String]]) -> String {
        let rows = rows.map { $0.map(TerminalSafe.clean) }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.indices.map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n") + "\n"
    }
}
