import Foundation
@testable import RepartoRuntime
import Testing

/// Instants below are checked against the tz database with `zdump -v -c 2026,2027 ZONE`:
/// Europe/Berlin springs forward at 2026-03-29T01:00Z (02:00 CET → 03:00 CEST) and falls back at
/// 2026-10-25T01:00Z (03:00 CEST → 02:00 CET); America/New_York at 2026-03-08T07:00Z (02:00 EST →
/// 03:00 EDT) and 2026-11-01T06:00Z (02:00 EDT → 01:00 EST).
@Suite("Cron expressions and intervals, without servers", .timeLimit(.minutes(1)))
struct CronExpressionTests {
    func utc(_ text: String) -> Date {
        guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("bad test date \(text)") }
        return date
    }

    func next(_ expression: String, after: String, in zone: String = "UTC") throws -> Date? {
        try CronExpression(parsing: expression).next(after: utc(after), in: try #require(TimeZone(identifier: zone)))
    }

    /// The next `count` ticks, each strictly after the one before.
    func ticks(_ expression: String, after: String, in zone: String, count: Int) throws -> [Date] {
        let cron = try CronExpression(parsing: expression)
        let zone = try #require(TimeZone(identifier: zone))
        var ticks: [Date] = []
        var cursor = utc(after)
        for _ in 0..<count {
            guard let tick = cron.next(after: cursor, in: zone) else { break }
            ticks.append(tick)
            cursor = tick
        }
        return ticks
    }

    @Test func fieldsRangesStepsListsAndNames() throws {
        #expect(try next("*/15 * * * *", after: "2026-11-24T10:07:30Z") == utc("2026-11-24T10:15:00Z"))
        #expect(try next("0 9-17/4 * * *", after: "2026-11-24T09:00:00Z") == utc("2026-11-24T13:00:00Z"), "strictly after")
        #expect(try next("5,35 * * * *", after: "2026-11-24T10:35:00Z") == utc("2026-11-24T11:05:00Z"))
        // 2026-11-24 is a Tuesday (`date -ud 2026-11-24 +%A`); the next Friday is the 27th.
        #expect(try next("0 0 * * FRI", after: "2026-11-24T10:00:00Z") == utc("2026-11-27T00:00:00Z"))
        #expect(try next("0 12 * JAN,jul *", after: "2026-11-24T10:00:00Z") == utc("2027-01-01T12:00:00Z"))
        #expect(try next("0 0 * * 7", after: "2026-11-24T10:00:00Z") == utc("2026-11-29T00:00:00Z"), "7 is Sunday")
        #expect(try next("0 0 * * FRI-SUN", after: "2026-11-28T10:00:00Z") == utc("2026-11-29T00:00:00Z"), "FRI-SUN wraps to Sunday")
        #expect(try next("@hourly", after: "2026-11-24T10:59:59Z") == utc("2026-11-24T11:00:00Z"))
        #expect(try next("@monthly", after: "2026-11-24T10:00:00Z") == utc("2026-12-01T00:00:00Z"))
    }

    /// Vixie cron: with both day fields restricted, either matches; with one starting `*`, both must.
    @Test func dayOfMonthAndDayOfWeekFollowVixie() throws {
        // The 1st of December 2026 is a Tuesday; Monday the 30th of November comes first.
        #expect(try next("0 0 1 * MON", after: "2026-11-24T10:00:00Z") == utc("2026-11-30T00:00:00Z"))
        #expect(try next("0 0 1 * MON", after: "2026-11-30T00:00:00Z") == utc("2026-12-01T00:00:00Z"))
        // `*/2` in day-of-month is "star": odd days that are also Mondays (Nov 30 is even; Dec 7 is odd).
        #expect(try next("0 0 */2 * MON", after: "2026-11-24T10:00:00Z") == utc("2026-12-07T00:00:00Z"))
    }

    @Test func leapDaysAndDatesThatNeverCome() throws {
        #expect(try next("0 0 29 2 *", after: "2026-11-24T00:00:00Z") == utc("2028-02-29T00:00:00Z"))
        #expect(try next("0 0 30 2 *", after: "2026-11-24T00:00:00Z") == nil)
        #expect(try next("0 0 31 4,6 *", after: "2026-11-24T00:00:00Z") == nil)
    }

    /// A fixed time skipped by spring-forward runs once at the end of the gap; wildcard times
    /// in the gap do not run twice.
    @Test func springForwardRunsASkippedFixedTimeAtTheEndOfTheGap() throws {
        #expect(try ticks("30 2 * * *", after: "2026-03-28T12:00:00Z", in: "Europe/Berlin", count: 2)
                == [utc("2026-03-29T01:00:00Z"), utc("2026-03-30T00:30:00Z")])
        #expect(try ticks("*/30 * * * *", after: "2026-03-08T06:45:00Z", in: "America/New_York", count: 3)
                == [utc("2026-03-08T07:00:00Z"), utc("2026-03-08T07:30:00Z"), utc("2026-03-08T08:00:00Z")])
    }

    /// A fixed time repeated by fall-back runs once (its first occurrence); a wildcard hour keeps
    /// its cadence and runs in both passes.
    @Test func fallBackRunsAFixedTimeOnceAndWildcardsInBothPasses() throws {
        #expect(try ticks("30 2 * * *", after: "2026-10-24T12:00:00Z", in: "Europe/Berlin", count: 2)
                == [utc("2026-10-25T00:30:00Z"), utc("2026-10-26T01:30:00Z")])
        #expect(try ticks("0 * * * *", after: "2026-11-01T04:30:00Z", in: "America/New_York", count: 3)
                == [utc("2026-11-01T05:00:00Z"), utc("2026-11-01T06:00:00Z"), utc("2026-11-01T07:00:00Z")])
        #expect(try ticks("*/30 1 * * *", after: "2026-11-01T05:10:00Z", in: "America/New_York", count: 4)
                == [utc("2026-11-01T05:30:00Z"), utc("2026-11-01T06:00:00Z"), utc("2026-11-01T06:30:00Z"),
                    utc("2026-11-02T06:00:00Z")])
    }

    /// Every tick of a year in a DST zone is strictly increasing and a whole minute, and a daily
    /// fixed time fires once a day (365 in 2027).
    @Test func aYearOfTicksIsOrderedAndDaily() throws {
        let daily = try ticks("15 2 * * *", after: "2026-12-31T23:00:00Z", in: "Europe/Berlin", count: 400)
            .filter { $0 < utc("2027-12-31T23:00:00Z") }
        #expect(daily.count == 365)
        #expect(zip(daily, daily.dropFirst()).allSatisfy { $0 < $1 })
        #expect(daily.allSatisfy { Int($0.timeIntervalSince1970) % 60 == 0 })
    }

    @Test(arguments: [
        ("", CronParseError.empty),
        ("* * * *", .fieldCount(4)),
        ("@fortnightly", .unknownNickname("@fortnightly")),
        ("60 * * * *", .outOfRange(field: .minute, token: "60")),
        ("* 24 * * *", .outOfRange(field: .hour, token: "24")),
        ("* * 0 * *", .outOfRange(field: .dayOfMonth, token: "0")),
        ("* * * FOO *", .badValue(field: .month, token: "FOO")),
        ("* * * * 5-2", .reversedRange(field: .dayOfWeek, token: "5-2")),
        ("*/0 * * * *", .badStep(field: .minute, token: "*/0")),
        ("+5 * * * *", .badValue(field: .minute, token: "+5")),
        ("1,,2 * * * *", .badValue(field: .minute, token: "1,,2")),
    ])
    func badExpressionsSayWhichFieldAndToken(text: String, error: CronParseError) {
        #expect(throws: error) { try CronExpression(parsing: text) }
    }

    @Test func missedTicksAreCountedNotRun() throws {
        let cadence = try ScheduleCadence.cron("*/5 * * * *")
        let missed = cadence.ticks(after: utc("2026-11-24T10:00:00Z"), through: utc("2026-11-24T10:31:00Z"))
        #expect(missed.count == 6 && !missed.atLeast, "10:05 … 10:30")
        let every = try ScheduleCadence.every("30s")
        #expect(every.ticks(after: utc("2026-11-24T10:00:00Z"), through: utc("2026-11-24T10:05:00Z")).count == 10)
        #expect(every.ticks(after: utc("2026-11-24T10:05:00Z"), through: utc("2026-11-24T10:00:00Z")).count == 0)
    }

    @Test func intervals() throws {
        #expect(try ScheduleInterval(parsing: "30s").seconds == 30)
        #expect(try ScheduleInterval(parsing: "1h30m").seconds == 5400)
        #expect(try ScheduleInterval(parsing: "2d").seconds == 172_800)
        #expect(throws: ScheduleIntervalError.self) { try ScheduleInterval(parsing: "0s") }
        #expect(throws: ScheduleIntervalError.self) { try ScheduleInterval(parsing: "5 parsecs") }
        #expect(throws: ScheduleIntervalError.self) { try ScheduleInterval(parsing: "400d") }
        #expect(throws: ScheduleError.unknownTimeZone("Mars/Olympus")) { try ScheduleCadence.cron("@daily", timeZone: "Mars/Olympus") }
    }
}
