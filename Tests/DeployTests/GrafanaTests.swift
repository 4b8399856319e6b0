import Foundation
import Testing

/// deploy/grafana/reparto-dashboard.json: queries only metrics the code emits and views and
/// columns the migrations create.
@Suite(.timeLimit(.minutes(2))) struct GrafanaTests {
    let dashboard: [String: Any]
    let targets: [[String: Any]]

    init() throws {
        let data = try Data(contentsOf: Deploy.url("deploy/grafana/reparto-dashboard.json"))
        dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var panels = dashboard["panels"] as? [[String: Any]] ?? []
        panels += panels.flatMap { $0["panels"] as? [[String: Any]] ?? [] }
        targets = panels.flatMap { $0["targets"] as? [[String: Any]] ?? [] }
    }

    var expressions: [String] { targets.compactMap { $0["expr"] as? String } }
    var queries: [String] { targets.compactMap { $0["rawSql"] as? String } }

    @Test func decodesWithPanelsForBothDatasources() throws {
        #expect(dashboard["title"] as? String != nil)
        #expect(dashboard["uid"] as? String != nil)
        #expect(!expressions.isEmpty, "Prometheus panels")
        #expect(!queries.isEmpty, "PostgreSQL panels over the ops.* views")
        let variables = ((dashboard["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        for target in targets {
            let uid = (target["datasource"] as? [String: Any])?["uid"] as? String ?? ""
            #expect(uid.hasPrefix("${") && variables.contains(String(uid.dropFirst(2).dropLast())),
                    "every query uses a datasource variable (\(uid)), so the dashboard imports anywhere")
        }
    }

    @Test func everyMetricQueriedIsOneTheCodeEmits() throws {
        var metrics: Set<String> = []
        for expression in expressions {
            metrics.formUnion(Deploy.matches(#"\b(reparto_[a-z0-9_]+)\b"#, in: expression))
        }
        #expect(!metrics.isEmpty)
        for metric in metrics.sorted() {
            // Histograms are exported as <name>_bucket, _sum and _count.
            var name = metric
            for suffix in ["_bucket", "_sum", "_count"] where metric.hasSuffix(suffix) && !Deploy.sourcesContain("\"\(metric)\"") {
                name = String(metric.dropLast(suffix.count))
            }
            #expect(Deploy.sourcesContain("\"\(name)\""), "\(metric): no metric labelled \"\(name)\" in Sources/")
        }
        // The labels the queries group by are dimensions the code records.
        for expression in expressions {
            for group in Deploy.matches(#"by \(([a-z_, ]+)\)"#, in: expression) {
                for label in group.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
                where !["le", "instance", "job"].contains(label) {
                    #expect(Deploy.sourcesContain("(\"\(label)\","), "label \(label) in `\(expression)` is a dimension in Sources/")
                }
            }
        }
    }

    @Test func everyViewAndColumnQueriedExists() throws {
        var views: [String: String] = [:]
        for path in Deploy.files(under: "migrations") where path.hasSuffix(".sql") {
            let sql = try Deploy.text(path)
            let pattern = try NSRegularExpression(pattern: #"CREATE (?:OR REPLACE )?VIEW ops\.([a-z_]+) AS([\s\S]*?);\s*\n"#)
            for match in pattern.matches(in: sql, range: NSRange(sql.startIndex..., in: sql)) {
                views[String(sql[Range(match.range(at: 1), in: sql)!])] = String(sql[Range(match.range(at: 2), in: sql)!])
            }
        }
        #expect(!views.isEmpty, "the migrations define ops.* views")
        for query in queries {
            let used = Deploy.matches(#"\bops\.([a-z_]+)"#, in: query)
            #expect(used.count == 1, "one view per query: \(query)")
            guard let view = used.first else { continue }
            let definition = try #require(views[view], "ops.\(view) is defined by a migration")
            let words = Set(Deploy.matches(#"([a-z_][a-z0-9_]*)"#, in: definition))
            guard let select = query.range(of: "SELECT "), let from = query.range(of: "FROM ") else { continue }
            for item in query[select.upperBound..<from.lowerBound].split(separator: ",") {
                let column = item.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").first.map(String.init) ?? ""
                #expect(words.contains(column), "ops.\(view) has a column \(column)")
            }
        }
        // The dashboard role may read exactly these views.
        #expect(try Deploy.text("migrations/0002_ops_views.sql").contains("GRANT SELECT ON ALL TABLES IN SCHEMA ops TO reparto_dashboard"))
    }
}
