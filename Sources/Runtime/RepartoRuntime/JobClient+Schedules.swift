import Foundation

// Schedules: fired by the coordinator leader (see docs/architecture.md, "Schedules").
extension JobClient {
    /// Adds a schedule, or replaces the definition of the one with the same name (a paused one
    /// stays paused). Its next tick is the first after now. Returns the stored schedule and
    /// whether one was replaced.
    /// - Throws: ``ScheduleError`` for a bad name, kind or attempts, or a cron expression that never fires.
    @discardableResult
    public func addSchedule(_ definition: ScheduleDefinition) async throws -> (schedule: ScheduleRecord, replaced: Bool) {
        try definition.validate()
        let (record, replaced) = try await postgres.withTransaction { try JobStore.upsertSchedule(definition, on: $0) }
        return (record, replaced)
    }

    /// Every schedule, by name.
    public func schedules() async throws -> [ScheduleRecord] {
        try await postgres.withConnection { try JobStore.schedules(on: $0) }
    }

    /// - Throws: ``ScheduleError/notFound(_:)``.
    public func schedule(named name: String) async throws -> ScheduleRecord {
        guard let record = try await postgres.withConnection({ try JobStore.schedules(named: name, on: $0).first }) else {
            throw ScheduleError.notFound(name)
        }
        return record
    }

    /// Pauses a schedule: it keeps its definition and fires nothing until resumed.
    /// - Throws: ``ScheduleError/notFound(_:)``.
    @discardableResult
    public func pauseSchedule(named name: String) async throws -> ScheduleRecord {
        guard let record = try await postgres.withConnection({ try JobStore.pauseSchedule(name, on: $0) }) else {
            throw ScheduleError.notFound(name)
        }
        return record
    }

    /// Resumes a paused schedule from now: its next tick is the first after now (the ticks it
    /// slept through are not run).
    /// - Throws: ``ScheduleError/notFound(_:)``.
    @discardableResult
    public func resumeSchedule(named name: String) async throws -> ScheduleRecord {
        guard let record = try await postgres.withTransaction({ try JobStore.resumeSchedule(name, on: $0) }) else {
            throw ScheduleError.notFound(name)
        }
        return record
    }

    /// Deletes a schedule; the jobs it enqueued stay.
    /// - Throws: ``ScheduleError/notFound(_:)``.
    public func deleteSchedule(named name: String) async throws {
        guard try await postgres.withConnection({ try JobStore.deleteSchedule(name, on: $0) }) else {
            throw ScheduleError.notFound(name)
        }
    }
}
