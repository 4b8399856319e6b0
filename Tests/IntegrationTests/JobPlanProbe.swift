import Foundation
@testable import RepartoRuntime
import Postgres

extension TestCluster {
    /// The indexes of `jobs` (or "Seq Scan") the plan of `sql` reads `jobs` through (`PREPARE` with `types`, then
    /// `EXPLAIN EXECUTE` with `arguments`, so the plan is the one the worker's parameters get).
    /// - Parameter session: settings of the session instead (with the generic plan), as a relay's.
    /// - Parameter settings: the generic plan's settings (``JobStore/idKeyedPlanSettings`` unless told).
    /// - Parameter custom: the custom plan's settings.
    func jobIndexes(_ sql: String, types: String, arguments: String, generic: Bool = false, session: String? = nil,
                    settings: KeyValuePairs<String, String> = JobStore.idKeyedPlanSettings,
                    custom: KeyValuePairs<String, String> = [:]) async throws -> Set<String> {
        try await postgres.withConnection { connection in
            // The generic plan under the settings the worker plans its claims and completions with.
            if let session {
                try connection.execute(session)
                try connection.execute("SET plan_cache_mode TO force_generic_plan")
            } else if generic {
                for (name, value) in settings { try connection.execute("SET \(name) TO \(value)") }
            } else {
                try connection.execute("SET plan_cache_mode TO force_custom_plan")
                for (name, value) in custom { try connection.execute("SET \(name) TO \(value)") }
            }
            defer { try? connection.execute("RESET plan_cache_mode; RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_nestloop; RESET synchronous_commit") }
            try connection.execute("PREPARE probe\(types.isEmpty ? "" : "(\(types))") AS \(sql)")
            defer { try? connection.execute("DEALLOCATE probe") }
            let row = try connection.query("EXPLAIN (FORMAT JSON) EXECUTE probe\(arguments.isEmpty ? "" : "(\(arguments))")").first
            let plan = row?.string("QUERY PLAN") ?? ""
            var found = Set<String>()
            func walk(_ node: Any) {
                if let object = node as? [String: Any] {
                    // An index scan with no condition reads the whole index: as bad as a seq scan.
                    if let index = object["Index Name"] as? String, index.hasPrefix("jobs_") {
                        found.insert(object["Index Cond"] == nil && object["Node Type"] as? String != "Bitmap Index Scan"
                                     ? "\(index) whole" : index)
                    }
                    if object["Relation Name"] as? String == "jobs", object["Node Type"] as? String == "Seq Scan" { found.insert("Seq Scan") }
                    // Only the relay's plans are asked about bitmap scans (see its session settings).
                    if session != nil, object["Relation Name"] as? String == "jobs",
                       object["Node Type"] as? String == "Bitmap Heap Scan" { found.insert("Bitmap Heap Scan") }
                    object.values.forEach(walk)
                } else if let array = node as? [Any] {
                    array.forEach(walk)
                }
            }
            walk(try JSONSerialization.jsonObject(with: Data(plan.utf8)))
            return found
        }
    }
}
