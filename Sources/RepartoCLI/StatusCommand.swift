import ArgumentParser
import Foundation
import Jobs
import Postgres

/// `reparto status [--json]`: the operations views as tables or JSON.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show queues, productions, workers and failures.")

    @OptionGroup var cluster: ClusterOptions

    @Flag(help: "Print JSON instead of tables.")
    var json = false

    @Option(help: "Rows per view.")
    var limit: Int = 20

    func run() async throws {
        let logger = cluster.makeLogger("reparto.status")
        let views: [(OpsView, PostgresResult)] = try await cluster.withPostgres(logger: logger) { postgres in
            var results: [(OpsView, PostgresResult)] = []
            for view in OpsView.allCases { results.append((view, try await view.rows(limit: limit, on: postgres))) }
            return results
        }
        if json {
            print(StatusRendering.json(views))
        } else {
            for (view, rows) in views {
                print("== \(view.rawValue) ==")
                print(StatusRendering.table(rows), terminator: "")
                print()
            }
        }
    }
}

/// Renders query results as aligned text tables or JSON (numbers as numbers, NULL as null).
enum StatusRendering {
    static func table(_ result: PostgresResult) -> String {
        let columns = result.columns
        if result.isEmpty { return "(none)\n" }
        return TextTable.render(header: columns, rows: result.map { row in columns.indices.map { row[$0] ?? "-" } })
    }

    static func json(_ views: [(OpsView, PostgresResult)]) -> String {
        var object: [String: Any] = [:]
        for (view, result) in views {
            object[view.rawValue] = result.map { row -> [String: Any] in
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
