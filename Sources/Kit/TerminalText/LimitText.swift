import Foundation
import RepartoRuntime

/// How the CLI prints limits.
public enum LimitText {
    /// `20/s burst 5, concurrency 8, budget 90000/min`.
    public static func terms(_ spec: LimitSpec) -> String {
        var parts: [String] = []
        if let rate = spec.rate { parts.append("\(number(rate))/s burst \(number(spec.burst ?? 1))") }
        if let concurrency = spec.concurrency { parts.append("concurrency \(concurrency)") }
        if let budget = spec.budget, let window = spec.budgetWindow { parts.append("budget \(number(budget)) per \(number(window)) s") }
        if let maxBlock = spec.maxBlock { parts.append("blocks at most \(number(maxBlock)) s") }
        return parts.joined(separator: ", ")
    }

    public static func table(_ limits: [LimitUsage]) -> String {
        if limits.isEmpty { return "(no limits)\n" }
        let header = ["name", "terms", "running", "waiting", "tokens", "budget left", "blocked until"]
        let rows = limits.map { usage -> [String] in
            [usage.spec.name, terms(usage.spec), "\(usage.running)", "\(usage.waiting)",
             usage.spec.rate == nil ? "-" : number(usage.gate.tokens),
             usage.spec.budget == nil ? "-" : number(usage.gate.budgetLeft),
             usage.blocked ? (usage.gate.blockedUntil?.formatted(.iso8601) ?? "-") : "-"]
        }
        return TextTable.render(header: header, rows: rows)
    }

    public static func json(_ limits: [LimitUsage]) -> String {
        let objects: [[String: Any]] = limits.map { usage in
            var object: [String: Any] = ["name": usage.spec.name, "running": usage.running, "waiting": usage.waiting,
                                         "blocked": usage.blocked]
            if let rate = usage.spec.rate { object["rate_per_second"] = rate; object["burst"] = usage.spec.burst ?? 1; object["tokens"] = usage.gate.tokens }
            if let concurrency = usage.spec.concurrency { object["concurrency"] = concurrency }
            if let budget = usage.spec.budget {
                object["budget"] = budget
                object["budget_window_seconds"] = usage.spec.budgetWindow ?? 0
                object["budget_left"] = usage.gate.budgetLeft
            }
            if usage.blocked, let until = usage.gate.blockedUntil { object["blocked_until"] = until.formatted(.iso8601) }
            return object
        }
        let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .prettyPrinted])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// 20, 0.5, 1666.67: no trailing zeros.
    public static func number(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
        return String(format: "%.2f", value)
    }
}
