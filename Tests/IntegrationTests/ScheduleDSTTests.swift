import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// What `CronExpression` documents for a fixed wall time (`30 2 …`) across daylight-saving changes,
/// computed independently of it: from Foundation's list of a zone's transitions
/// (`nextDaylightSavingTimeTransition`) and, on days without one, `Calendar`.
/// - a day has exactly one tick;
/// - a wall time skipped by a spring-forward fires at the jump (the first instant after the gap);
/// - a wall time repeated by a fall-back fires at its first occurrence only.
struct DSTOracle {
    struct Day: Hashable, Comparable, CustomStringConvertible {
        var year: Int, month: Int, day: Int
        static func < (a: Day, b: Day) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }
        var description: String { "\(year)-\(month)-\(day)" }
    }

    let zone: TimeZone
    /// Every transition from two years before `now` to two years after.
    let transitions: [Date]
    private let local: Calendar
    private let utc: Calendar

    init(_ identifier: String, around now: Date) throws {
        zone = try #require(TimeZone(identifier: identifier))
        var local = Calendar(identifier: .gregorian)
        local.timeZone = zone
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = try #require(TimeZone(identifier: "UTC"))
        (self.local, self.utc) = (local, utc)
        var found: [Date] = []
        var cursor = now.addingTimeInterval(-730 * 86_400)
        while let transition = zone.nextDaylightSavingTimeTransition(after: cursor), transition < now.addingTimeInterval(730 * 86_400) {
            found.append(transition)
            cursor = transition
        }
        transitions = found
    }

    func isSpringForward(_ transition: Date) -> Bool {
        zone.secondsFromGMT(for: transition) > zone.secondsFromGMT(for: transition.addingTimeInterval(-1))
    }

    func day(of date: Date) -> Day {
        let parts = local.dateComponents([.year, .month, .day], from: date)
        return Day(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0)
    }

    /// The wall clock's hour and minute at `date`.
    func wallClock(_ date: Date) -> (hour: Int, minute: Int) {
        let parts = local.dateComponents([.hour, .minute], from: date)
        return (parts.hour ?? -1, parts.minute ?? -1)
    }

    func adding(_ days: Int, to day: Day) -> Day {
        let date = utc.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12)) ?? .distantPast
        let parts = utc.dateComponents([.year, .month, .day], from: date.addingTimeInterval(Double(days) * 86_400))
        return Day(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0)
    }

    /// The one instant `hour:minute` on `day` fires at.
    func tick(on day: Day, hour: Int, minute: Int) -> Date {
        let components = DateComponents(year: day.year, month: day.month, day: day.day, hour: hour, minute: minute)
        guard let transition = transitions.first(where: { self.day(of: $0) == day }) else {
            // No transition that day: the offset is the same all day, the wall time is unambiguous.
            return local.date(from: components) ?? .distantPast
        }
        // The wall time read as if it were UTC, minus the offset before or after the transition;
        // an offset is in force only on its side of the transition.
        let wall = (utc.date(from: components) ?? .distantPast).timeIntervalSince1970
        let before = wall - Double(zone.secondsFromGMT(for: transition.addingTimeInterval(-1)))
        let after = wall - Double(zone.secondsFromGMT(for: transition))
        let valid = [before < transition.timeIntervalSince1970 ? before : nil,
                     after >= transition.timeIntervalSince1970 ? after : nil].compactMap { $0 }
        // Neither: the wall time is in the gap and fires at the jump. Both: the first occurrence.
        return valid.min().map { Date(timeIntervalSince1970: $0) } ?? transition
    }

    /// The ticks in `(after, through]` of `hour:minute` on the days `matches` accepts.
    func ticks(hour: Int, minute: Int, on matches: (Day) -> Bool, after: Date, through: Date) -> [Date] {
        var ticks: [Date] = []
        var day = adding(-1, to: self.day(of: after))
        let last = adding(1, to: self.day(of: through))
        while day <= last {
            if matches(day) {
                let tick = self.tick(on: day, hour: hour, minute: minute)
                if tick > after && tick <= through { ticks.append(tick) }
            }
            day = adding(1, to: day)
        }
        return ticks
    }

    /// The first tick strictly after `date` (within 400 days).
    func next(hour: Int, minute: Int, on matches: (Day) -> Bool, after date: Date) -> Date? {
        var day = adding(-1, to: self.day(of: date))
        for _ in 0..<400 {
            if matches(day) {
                let tick = self.tick(on: day, hour: hour, minute: minute)
                if tick > date { return tick }
            }
            day = adding(1, to: day)
        }
        return nil
    }
}

/// A real coordinator fires cron schedules whose ticks cross daylight-saving changes. The clock
/// cannot be moved, so the seam is the stored `next_run_at`: set in the past (as if no
/// coordinator had run since), the coordinator enqueues that tick once, counts the ticks it
/// missed up to now across the changes, and computes the next tick — all in the schedule's zone.
@Suite("Cron schedules across daylight-saving changes, fired by a coordinator", .timeLimit(.minutes(3)))
struct ScheduleDSTTests {
    /// One schedule of the test: its expression's hour and minute, the days it matches, its oracle.
    struct Case {
        var name: String
        var zone: String
        var hour: Int
        var cron: String
        var days: @Sendable (DSTOracle.Day) -> Bool
        /// The tick stored as next_run_at (in the past).
        var stored: Date
        var oracle: DSTOracle
    }

    func jobTicks(_ name: String, in cluster: TestCluster) async throws -> [Date] {
        let rows = try await cluster.postgres.query(
            "SELECT idempotency_key AS key FROM jobs WHERE idempotency_key LIKE $1", ["schedule:\(name):%"])
        return try rows.map { row in
            let key = try #require(row.string("key"))
            return try #require(ISO8601DateFormatter().date(from: String(key.dropFirst("schedule:\(name):".count))), "tick of \(key)")
        }
    }

    /// Daily schedules at a wall time that each zone both skips (spring-forward) and repeats
    /// (fall-back) — 02:30 in Europe/Berlin — or repeats — 01:30 in America/New_York — stored as
    /// due since the FIRST pass of the repeated time on the fall-back night before the last
    /// spring-forward: one job for that tick, every later day counted as missed exactly once (the
    /// second pass of the repeated time is no tick; the spring-forward day has its one tick at the
    /// jump), next_run_at the next day's time. And yearly schedules on the date of each zone's next
    /// spring-forward or fall-back: next_run_at is the jump (a skipped 02:30) or the first pass
    /// (a repeated 01:30 or 02:30), as `CronExpression` documents.
    @Test func aCoordinatorFiresDailyAndYearlyCronSchedulesAcrossSpringForwardAndFallBack() async throws {
        let cluster = try await TestCluster.make()
        let now = try #require(try await cluster.postgres.query("SELECT now() AS now").first?.date("now"))
        var cases: [Case] = []
        // Europe/Berlin: 02:00 CET → 03:00 CEST (02:xx skipped), 03:00 CEST → 02:00 CET (02:xx twice).
        // America/New_York: 02:00 EST → 03:00 EDT (02:xx skipped), 02:00 EDT → 01:00 EST (01:xx twice).
        for (zone, repeatedHour, skippedHour) in [("Europe/Berlin", 2, 2), ("America/New_York", 1, 2)] {
            let oracle = try DSTOracle(zone, around: now)
            let lastSpring = try #require(oracle.transitions.last { $0 < now && oracle.isSpringForward($0) }, "\(zone)")
            let fallBefore = try #require(oracle.transitions.last { $0 < lastSpring && !oracle.isSpringForward($0) }, "\(zone)")
            let firstPass = oracle.tick(on: oracle.day(of: fallBefore), hour: repeatedHour, minute: 30)
            // The premise: that wall time happens twice that night, an hour apart, and this is the first.
            try #require(oracle.wallClock(firstPass) == (repeatedHour, 30) && oracle.wallClock(firstPass.addingTimeInterval(3600)) == (repeatedHour, 30),
                         "\(zone): \(repeatedHour):30 repeats on \(oracle.day(of: fallBefore))")
            try #require(oracle.wallClock(firstPass.addingTimeInterval(-3600)) != (repeatedHour, 30))
            cases.append(Case(name: "daily-\(zone.lowercased().replacingOccurrences(of: "/", with: "-"))", zone: zone, hour: repeatedHour,
                              cron: "30 \(repeatedHour) * * *", days: { _ in true }, stored: firstPass, oracle: oracle))

            // The next spring-forward and fall-back at least a day away: a yearly schedule on its date.
            for spring in [true, false] {
                let transition = try #require(oracle.transitions.first {
                    $0 > now.addingTimeInterval(86_400) && oracle.isSpringForward($0) == spring
                })
                let day = oracle.day(of: transition)
                let hour = spring ? skippedHour : repeatedHour
                let expected = oracle.tick(on: day, hour: hour, minute: 30)
                // The premise: the gap's time fires at the jump; the repeated time an hour before its second pass.
                if spring {
                    try #require(expected == transition && oracle.wallClock(expected) == (hour + 1, 0), "\(zone) \(day)")
                } else {
                    try #require(expected == transition.addingTimeInterval(-1800) && oracle.wallClock(expected) == (hour, 30), "\(zone) \(day)")
                }
                let (month, date) = (day.month, day.day)
                // Stored as due since a whole minute an hour ago (any past instant is a tick to the coordinator).
                let stored = Date(timeIntervalSince1970: ((now.timeIntervalSince1970 - 3600) / 60).rounded(.down) * 60)
                cases.append(Case(name: "\(spring ? "spring" : "fall")-\(zone.lowercased().replacingOccurrences(of: "/", with: "-"))",
                                  zone: zone, hour: hour, cron: "30 \(hour) \(date) \(month) *",
                                  days: { $0.month == month && $0.day == date }, stored: stored, oracle: oracle))
            }
        }
        for test in cases {
            try await cluster.client.addSchedule(ScheduleDefinition(name: test.name, cadence: try .cron(test.cron, timeZone: test.zone), NoopJob()))
            _ = try await cluster.postgres.query("UPDATE schedules SET next_run_at = $2 WHERE name = $1", [test.name, test.stored])
        }

        let scheduleCount = cases.count
        let coordinator = cluster.startCoordinator()
        try await cluster.wait(for: "every overdue schedule to fire") {
            try await cluster.count("SELECT count(*)::int AS n FROM schedules WHERE last_job_id IS NOT NULL") == scheduleCount
        }
        try await coordinator.stop()

        for test in cases {
            let record = try await cluster.client.schedule(named: test.name)
            // The coordinator's now (last_run_at is now() of the transaction that fired the tick).
            let firedAt = try #require(record.lastRunAt)
            let missed = test.oracle.ticks(hour: test.hour, minute: 30, on: test.days, after: test.stored, through: firedAt)
            let next = test.oracle.next(hour: test.hour, minute: 30, on: test.days, after: firedAt)
            #expect(try await jobTicks(test.name, in: cluster) == [test.stored], "\(test.name): one job, for the stored tick")
            #expect(record.missedTicks == missed.count, "\(test.name) (\(test.cron), \(test.zone)): missed \(record.missedTicks), expected \(missed.count)")
            #expect(record.nextRunAt == next, "\(test.name) (\(test.cron), \(test.zone)): next \(String(describing: record.nextRunAt)), expected \(String(describing: next))")
        }
        // The daily schedules crossed a fall-back and a spring-forward: more than 300 days missed.
        for test in cases where test.name.hasPrefix("daily") {
            #expect(try await cluster.client.schedule(named: test.name).missedTicks > 300, "\(test.name)")
        }
        await cluster.shutdown()
    }
}
