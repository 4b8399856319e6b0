import Foundation
import RepartoRuntime
import Postgres
import TextEscaping

/// Renders query results as aligned text tables or JSON (numbers as numbers, NULL as null).
public enum StatusRendering {
    public static func table(_ result: PostgresResult) -> String {
        let columns = result.columns
        if result.isEmpty { return "(none)\n" }
        return TextTable.render(header: columns, rows: result.map { row in columns.indices.map { row[$0] ?? "-" } })
    }

    /// Every view as `== name ==`, its table and a blank line.
    public static func text(_ views: [(OpsView, PostgresResult)]) -> String {
        TerminalSafe.clean(views.map { view, rows in "== \(view.name) ==\n" + table(rows) + "\n" }.joined())
    }

    public static func json(_ views: [(OpsView, PostgresResult)]) -> String {
        var object: [String: Any] = [:]
        for (view, result) in views {
            object[view.name] = result.map { row -> [String: Any] in
                var entry: [String: Any] = [:]
                for (index, column) in result.columns.enumerated() { entry[column] = jsonValue(row[index]) }
                return entry
            }
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private static func jsonValue(_ text: String?) -> Any {
        guard let text else { return NSNull() }
        if let int = Int(text) { return int }
        if let double = Double(text), text.contains(".") { return double }
        if text.hasPrefix("{") && text.hasSuffix("}") && !text.contains("\"") {
            // A PostgreSQL text[] literal of simple words.
            return text.dropFirst().dropLast().split(separator: ",").map(String.init)
        }
        return text
    }
}
