import Foundation
import RepartoRuntime

/// Schedules as a table or JSON.
public enum ScheduleText {
    public static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .current))
    }

    public static func cadenceFields(_ cadence: ScheduleCadence) -> (cron: String?, every: String?, timezone: String?) {
        switch cadence {
        case .cron(let expression, let zone): return (expression.source, nil, zone.identifier)
        case .every(let interval): return (nil, interval.description, nil)
        }
    }

    public static func table(_ schedules: [ScheduleRecord]) -> String {
        if schedules.isEmpty { return "(no schedules)\n" }
        let header = ["name", "cadence", "kind", "state", "next_run_at", "last_run_at", "last_job_id", "missed_ticks"]
        let rows = schedules.map { schedule in
            [schedule.name, schedule.definition.cadence.description, schedule.definition.kind, schedule.paused ? "paused" : "active",
             schedule.nextRunAt.map(time) ?? "-", schedule.lastRunAt.map(time) ?? "-",
             schedule.lastJobID?.uuidString.lowercased() ?? "-", "\(schedule.missedTicks)"]
        }
        return TextTable.render(header: header, rows: rows)
    }

    public static func json(_ schedules: [ScheduleRecord]) -> String {
        let objects = schedules.map { schedule -> [String: Any] in
            let definition = schedule.definition
            let cadence = cadenceFields(definition.cadence)
            return [
                "name": definition.name,
                "cron": cadence.cron ?? NSNull(),
                "every": cadence.every ?? NSNull(),
                "timezone": cadence.timezone ?? NSNull(),
                "kind": definition.kind,
                "queue": definition.queue,
                "params": (try? JSONSerialization.jsonObject(with: definition.parameters)) ?? [String: Any](),
                "priority": definition.priority.rawValue,
                "max_attempts": definition.maxAttempts,
                "timeout_seconds": definition.timeout ?? NSNull(),
                "paused": schedule.paused,
                "next_run_at": schedule.nextRunAt.map(time) ?? NSNull(),
                "last_run_at": schedule.lastRunAt.map(time) ?? NSNull(),
                "last_job_id": schedule.lastJobID?.uuidString.lowercased() ?? NSNull(),
                "missed_ticks": schedule.missedTicks,
                "created_at": time(schedule.createdAt),
            ]
        }
        let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .prettyPrinted])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
