import Foundation
import Postgres

/// What one pass of ``JobStore/fireDueSchedules(limit:on:)`` did.
struct ScheduleFiring: Sendable {
    var fired: [FiredTick] = []
    /// Schedules that were due but failed (their row is left as it was, to be tried again).
    var failed: [(name: String, error: String)] = []
    /// Due schedules that were left for the next pass (the pass took `limit` rows).
    var moreDue = false
}

// Schedules: JobClient's add/list/pause/resume/delete, and the coordinator leader's firing.
// Tick instants are computed in Swift (CronExpression, ScheduleInterval) against the database's
// clock (`now()`), so coordinators on hosts with skewed clocks agree.
extension JobStore {
    private static let scheduleColumns = """
        name, cron, every_seconds, timezone, kind, queue, params, priority, max_attempts, timeout_ms, paused,
        next_run_at, last_run_at, last_job_id, missed_ticks, created_at, updated_at
        """

    /// Adds a schedule, or replaces the definition of the one with that name (its paused state,
    /// last run and counters stay). next_run_at becomes the first tick after now. Run it in a
    /// transaction. Returns the stored record and whether a schedule was replaced.
    @available(*, noasync)
    static func upsertSchedule(_ definition: ScheduleDefinition, on connection: PostgresConnection) throws -> (ScheduleRecord, replaced: Bool) {
        try definition.validate()
        let now = try databaseNow(on: connection)
        guard let next = definition.cadence.nextTick(after: now) else {
            throw ScheduleError.neverFires(definition.cadence.description)
        }
        var cron: String?
        var every: Int32?
        var timezone = "UTC"
        switch definition.cadence {
        case .cron(let expression, let zone):
            cron = expression.source
            timezone = zone.identifier
        case .every(let interval):
            every = Int32(clamping: interval.seconds)
        }
        let row = try connection.query("""
            INSERT INTO schedules (name, cron, every_seconds, timezone, kind, queue, params, priority, max_attempts, timeout_ms, next_run_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11)
            ON CONFLICT (namespace, name) DO UPDATE SET
                cron = EXCLUDED.cron, every_seconds = EXCLUDED.every_seconds, timezone = EXCLUDED.timezone,
                kind = EXCLUDED.kind, queue = EXCLUDED.queue, params = EXCLUDED.params, priority = EXCLUDED.priority,
                max_attempts = EXCLUDED.max_attempts, timeout_ms = EXCLUDED.timeout_ms,
                next_run_at = EXCLUDED.next_run_at, updated_at = now()
            RETURNING \(scheduleColumns), (xmax <> 0) AS replaced
            """, [
                definition.name, cron, every, timezone, definition.kind, definition.queue, PostgresJSON(definition.parameters),
                Int16(definition.priority.value), Int32(clamping: definition.maxAttempts),
                definition.timeout.map(JobStore.milliseconds), next,
            ]).first
        guard let row else { throw ScheduleError.notFound(definition.name) }
        return (try scheduleRecord(row), row.bool("replaced") ?? false)
    }

    /// All schedules, by name; or the one named `name`.
    @available(*, noasync)
    static func schedules(named name: String? = nil, on connection: PostgresConnection) throws -> [ScheduleRecord] {
        let rows = if let name {
            try connection.query("SELECT \(scheduleColumns) FROM schedules WHERE name = $1", [name])
        } else {
            try connection.query("SELECT \(scheduleColumns) FROM schedules ORDER BY name")
        }
        return try rows.map(scheduleRecord)
    }

    /// Pauses a schedule (idempotent); nil when there is none of that name.
    @available(*, noasync)
    static func pauseSchedule(_ name: String, on connection: PostgresConnection) throws -> ScheduleRecord? {
        try connection.query("""
            UPDATE schedules SET paused = true, updated_at = CASE WHEN paused THEN updated_at ELSE now() END
            WHERE name = $1 RETURNING \(scheduleColumns)
            """, [name]).first.map(scheduleRecord)
    }

    /// Resumes a paused schedule from now: next_run_at becomes the first tick after now, so the ticks
    /// it slept through are not run. A schedule that is not paused is left as it is. Run it in a
    /// transaction. Nil when there is none of that name.
    @available(*, noasync)
    static func resumeSchedule(_ name: String, on connection: PostgresConnection) throws -> ScheduleRecord? {
        guard let row = try connection.query("SELECT \(scheduleColumns), now() AS db_now FROM schedules WHERE name = $1 FOR UPDATE",
                                             [name]).first else { return nil }
        let record = try scheduleRecord(row)
        guard record.paused else { return record }
        let now = row.date("db_now") ?? Date()
        let next = record.definition.cadence.nextTick(after: now)
        return try connection.query("""
            UPDATE schedules SET paused = false, next_run_at = $2, updated_at = now() WHERE name = $1 RETURNING \(scheduleColumns)
            """, [name, next]).first.map(scheduleRecord)
    }

    /// Deletes a schedule; false when there is none of that name. Its jobs stay.
    @available(*, noasync)
    static func deleteSchedule(_ name: String, on connection: PostgresConnection) throws -> Bool {
        try connection.query("DELETE FROM schedules WHERE name = $1 RETURNING name", [name]).count == 1
    }

    /// Fires the schedules that are due, in one transaction of its own: locks up to `limit` due rows
    /// (`FOR UPDATE SKIP LOCKED`, so two coordinators never take the same row), inserts each one's
    /// job through ``insert(_:on:)`` with the idempotency key `schedule:<name>:<tick>` (a tick
    /// enqueued before, by anyone, is not enqueued again), and moves next_run_at to the first tick
    /// strictly after now. Ticks that fell due meanwhile (no coordinator ran) are counted in
    /// `missed` and skipped: the schedule runs once for them.
    ///
    /// Each schedule goes under a savepoint: one that fails stays due and does not hold back the
    /// others. A stored definition that no longer parses gets next_run_at NULL (it never fires
    /// until it is added again) and is reported once.
    @available(*, noasync)
    static func fireDueSchedules(limit: Int = 100, on connection: PostgresConnection) throws -> ScheduleFiring {
        try connection.transaction { connection in
            var firing = ScheduleFiring()
            let rows = try connection.query("""
                SELECT \(scheduleColumns), now() AS db_now FROM schedules
                WHERE NOT paused AND next_run_at <= now()
                ORDER BY next_run_at LIMIT $1
                FOR UPDATE SKIP LOCKED
                """, [limit])
            firing.moreDue = rows.count == limit
            for row in rows {
                let name = row.string("name") ?? ""
                let record: ScheduleRecord
                do {
                    record = try scheduleRecord(row)
                } catch {
                    try connection.query("UPDATE schedules SET next_run_at = NULL, updated_at = now() WHERE name = $1", [name])
                    firing.failed.append((name, "\(error)"))
                    continue
                }
                guard let tick = record.nextRunAt, let now = row.date("db_now") else { continue }
                do {
                    let fired = try connection.transaction { connection -> FiredTick in
                        try fire(record, tick: tick, now: now, on: connection)
                    }
                    firing.fired.append(fired)
                } catch let error as PostgresError where error.isConnectionLost {
                    throw error
                } catch {
                    firing.failed.append((name, "\(error)"))
                }
            }
            return firing
        }
    }

    @available(*, noasync)
    private static func fire(_ record: ScheduleRecord, tick: Date, now: Date, on connection: PostgresConnection) throws -> FiredTick {
        let definition = record.definition
        let missed = definition.cadence.ticks(after: tick, through: now)
        let next = definition.cadence.nextTick(after: now)
        let request = JobRequest(kind: definition.kind, queue: definition.queue, parameters: definition.parameters, options: JobOptions(
            priority: definition.priority, maxAttempts: definition.maxAttempts, timeout: definition.timeout,
            idempotencyKey: ScheduleDefinition.idempotencyKey(name: definition.name, tick: tick)))
        let jobID = try insert([request], on: connection)[0]
        try connection.query("""
            UPDATE schedules SET next_run_at = $2, last_run_at = now(), last_job_id = $3,
                                 missed_ticks = missed_ticks + $4, updated_at = now()
            WHERE name = $1
            """, [definition.name, next, jobID, Int64(missed.count)])
        return FiredTick(name: definition.name, tick: tick, jobID: jobID, missed: missed.count, missedAtLeast: missed.atLeast, next: next)
    }

    /// Seconds until the soonest tick of an unpaused schedule (≤ 0: one is due); nil when there is none.
    @available(*, noasync)
    static func secondsUntilNextSchedule(on connection: PostgresConnection) throws -> Double? {
        try connection.query("""
            SELECT extract(epoch FROM min(next_run_at) - now())::float8 AS seconds FROM schedules WHERE NOT paused
            """).first?.double("seconds")
    }

    private static func scheduleRecord(_ row: PostgresRow) throws(ScheduleError) -> ScheduleRecord {
        let name = row.string("name") ?? ""
        let cadence: ScheduleCadence
        if let cron = row.string("cron") {
            do { cadence = try .cron(cron, timeZone: row.string("timezone") ?? "UTC") } catch {
                throw .invalidStored(name: name, reason: error.description)
            }
        } else if let seconds = row.int("every_seconds") {
            do { cadence = .every(try ScheduleInterval(seconds: seconds)) } catch {
                throw .invalidStored(name: name, reason: error.description)
            }
        } else {
            throw .invalidStored(name: name, reason: "neither cron nor every_seconds is set")
        }
        let definition = ScheduleDefinition(
            name: name, cadence: cadence, kind: row.string("kind") ?? "", queue: row.string("queue") ?? "default",
            parameters: Data((row.string("params") ?? "{}").utf8), priority: JobPriority(storedValue: row.int("priority") ?? 4),
            maxAttempts: row.int("max_attempts") ?? 5, timeout: row.int("timeout_ms").map { Double($0) / 1000 })
        return ScheduleRecord(
            definition: definition, paused: row.bool("paused") ?? false, nextRunAt: row.date("next_run_at"),
            lastRunAt: row.date("last_run_at"), lastJobID: row.uuid("last_job_id"), missedTicks: row.int("missed_ticks") ?? 0,
            createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0), updatedAt: row.date("updated_at") ?? Date(timeIntervalSince1970: 0))
    }
}

extension JobPriority {
    /// The priority a stored AMQP priority (0…9) came from.
    init(storedValue value: Int) {
        self = value >= JobPriority.high.value ? .high : value <= JobPriority.low.value ? .low : .normal
    }
}
