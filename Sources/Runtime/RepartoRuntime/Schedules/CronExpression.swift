import Foundation
import Postgres

/// A field of a cron expression, in the order they are written.
public enum CronField: String, Sendable, CaseIterable {
    case minute
    case hour
    case dayOfMonth = "day-of-month"
    case month
    case dayOfWeek = "day-of-week"

    /// The values a number may take (day-of-week: 0 and 7 are both Sunday).
    var bounds: ClosedRange<Int> {
        switch self {
        case .minute: return 0...59
        case .hour: return 0...23
        case .dayOfMonth: return 1...31
        case .month: return 1...12
        case .dayOfWeek: return 0...7
        }
    }

    /// The values `*` stands for.
    var all: ClosedRange<Int> { self == .dayOfWeek ? 0...6 : bounds }

    /// Names accepted instead of numbers (three letters, any case).
    var names: [String: Int] {
        switch self {
        case .month:
            return ["JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6,
                    "JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12]
        case .dayOfWeek:
            return ["SUN": 0, "MON": 1, "TUE": 2, "WED": 3, "THU": 4, "FRI": 5, "SAT": 6]
        case .minute, .hour, .dayOfMonth:
            return [:]
        }
    }

    var accepted: String {
        switch self {
        case .month: return "1-12 or JAN-DEC"
        case .dayOfWeek: return "0-7 or SUN-SAT"
        case .minute, .hour, .dayOfMonth: return "\(bounds.lowerBound)-\(bounds.upperBound)"
        }
    }
}

/// Why a cron expression was refused: which field, which token.
public enum CronParseError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    /// Not 5 fields (minute hour day-of-month month day-of-week).
    case fieldCount(Int)
    /// `@something` that is not one of the nicknames.
    case unknownNickname(String)
    /// Neither a number nor a name the field accepts.
    case badValue(field: CronField, token: String)
    /// A number outside the field's range.
    case outOfRange(field: CronField, token: String)
    /// `a-b` with a after b.
    case reversedRange(field: CronField, token: String)
    /// A step that is not a whole number from 1 to the field's span.
    case badStep(field: CronField, token: String)

    public var description: String {
        switch self {
        case .empty:
            return "empty cron expression"
        case .fieldCount(let count):
            return "cron expression has \(count) field\(count == 1 ? "" : "s"), expected 5 (minute hour day-of-month month day-of-week) or a nickname (@hourly, @daily, @weekly, @monthly, @yearly)"
        case .unknownNickname(let name):
            return "unknown cron nickname '\(name)' (use @hourly, @daily, @midnight, @weekly, @monthly, @yearly or @annually)"
        case .badValue(let field, let token):
            return "bad \(field.rawValue) '\(token)' in cron expression (expected \(field.accepted))"
        case .outOfRange(let field, let token):
            return "\(field.rawValue) '\(token)' is out of range in cron expression (expected \(field.accepted))"
        case .reversedRange(let field, let token):
            return "\(field.rawValue) range '\(token)' runs backwards in cron expression"
        case .badStep(let field, let token):
            return "bad \(field.rawValue) step '\(token)' in cron expression (a whole number from 1 to \(field.all.count))"
        }
    }
}

/// A standard five-field cron expression: `minute hour day-of-month month day-of-week`.
///
/// Each field is `*`, a value, a range `a-b`, a step `*/n`, `a-b/n` or `a/n` (from a to the end), or a
/// comma list of those; months and weekdays also by name (`JAN`, `MON`, any case); 0 and 7 are
/// Sunday. The nicknames `@yearly` (`@annually`), `@monthly`, `@weekly`, `@daily` (`@midnight`) and
/// `@hourly` stand for their usual expressions.
///
/// Day-of-month and day-of-week follow Vixie cron: when both are restricted, a day matches if
/// EITHER matches (`0 0 1 * MON` runs on the 1st and on every Monday); when either starts with `*`
/// (including `*/2`), a day must match both.
///
/// Times are wall-clock times in a time zone (``next(after:in:)``). Across daylight-saving changes:
/// - a wall time skipped by a spring-forward (02:30 on the night clocks jump from 02:00 to 03:00)
///   fires at the first instant after the gap (03:00 new time), once, however many skipped times
///   match;
/// - a wall time repeated by a fall-back (01:30 happens twice) fires once, at its first occurrence —
///   unless the minute or hour field starts with `*` (`*/15 * * * *`, `@hourly`): such an expression
///   keeps its cadence in elapsed time and fires in both passes of the repeated hour. This is Vixie
///   cron's rule for "wildcard" and "fixed-time" jobs.
///
/// For a cadence in elapsed time that ignores the wall clock, use ``ScheduleInterval``.
public struct CronExpression: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written (trimmed).
    public let source: String
    let minutes: UInt64
    let hours: UInt64
    let daysOfMonth: UInt64
    let months: UInt64
    let daysOfWeek: UInt64
    /// Vixie's "star" flags: the field starts with `*`.
    let dayOfMonthIsStar: Bool
    let dayOfWeekIsStar: Bool
    /// The minute or hour field starts with `*`: fires in both passes of a repeated hour.
    let firesInBothPasses: Bool

    public var description: String { source }

    static let nicknames: [String: String] = [
        "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
        "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
    ]

    public init(parsing text: String) throws(CronParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .empty }
        var expanded = trimmed
        if trimmed.hasPrefix("@") {
            guard let fields = Self.nicknames[trimmed.lowercased()] else { throw .unknownNickname(trimmed) }
            expanded = fields
        }
        let fields = expanded.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count == 5 else { throw .fieldCount(fields.count) }
        source = trimmed
        let minute = try Self.parse(fields[0], .minute)
        let hour = try Self.parse(fields[1], .hour)
        minutes = minute.bits
        hours = hour.bits
        firesInBothPasses = minute.star || hour.star
        let dayOfMonth = try Self.parse(fields[2], .dayOfMonth)
        months = try Self.parse(fields[3], .month).bits
        let dayOfWeek = try Self.parse(fields[4], .dayOfWeek)
        daysOfMonth = dayOfMonth.bits
        dayOfMonthIsStar = dayOfMonth.star
        daysOfWeek = dayOfWeek.bits
        dayOfWeekIsStar = dayOfWeek.star
    }

    // MARK: parsing

    private static func parse(_ text: Substring, _ field: CronField) throws(CronParseError) -> (bits: UInt64, star: Bool) {
        var bits: UInt64 = 0
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard !item.isEmpty else { throw .badValue(field: field, token: String(text)) }
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw .badStep(field: field, token: String(item)) }
            var step = 1
            if parts.count == 2 {
                guard let value = number(parts[1]), value >= 1, value <= field.all.count else {
                    throw .badStep(field: field, token: String(item))
                }
                step = value
            }
            let base = parts[0]
            var low: Int
            var high: Int
            if base == "*" {
                low = field.all.lowerBound
                high = field.all.upperBound
            } else if let dash = base.firstIndex(of: "-") {
                low = try value(base[..<dash], field, item: item)
                high = try value(base[base.index(after: dash)...], field, item: item)
                // SUN-named or 0 as the end of a weekday range means the week's end: FRI-SUN = 5-7.
                if field == .dayOfWeek && high == 0 && low > 0 { high = 7 }
                guard low <= high else { throw .reversedRange(field: field, token: String(item)) }
            } else {
                low = try value(base, field, item: item)
                // `a/n`: from a to the end of the field.
                high = parts.count == 2 ? field.all.upperBound : low
            }
            for value in stride(from: low, through: high, by: step) {
                bits |= 1 << UInt64(field == .dayOfWeek && value == 7 ? 0 : value)
            }
        }
        return (bits, text.first == "*")
    }

    private static func value(_ token: Substring, _ field: CronField, item: Substring) throws(CronParseError) -> Int {
        if let value = number(token) {
            guard field.bounds.contains(value) else { throw .outOfRange(field: field, token: String(item)) }
            return value
        }
        if let value = field.names[token.uppercased()] { return value }
        throw .badValue(field: field, token: String(item))
    }

    /// ASCII digits only (`Int("+5")` would accept a sign).
    private static func number(_ token: Substring) -> Int? {
        guard !token.isEmpty, token.count <= 4, token.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(token)
    }

    // MARK: matching

    /// Whether a day matches the day-of-month and day-of-week fields (the Vixie rule).
    func matches(year: Int, month: Int, day: Int) -> Bool {
        let dayOfMonth = daysOfMonth & (1 << UInt64(day)) != 0
        let dayOfWeek = daysOfWeek & (1 << UInt64(CivilTime.weekday(year: year, month: month, day: day))) != 0
        if dayOfMonthIsStar || dayOfWeekIsStar { return dayOfMonth && dayOfWeek }
        return dayOfMonth || dayOfWeek
    }

    /// How many years ahead ``next(after:in:)`` looks before it answers nil (an expression such as
    /// `0 0 30 2 *` never fires; February 29 fires at most 8 years apart).
    static let searchYears = 50

    /// The first instant strictly after `date` at which the expression fires in `zone`; nil when
    /// it never fires (`0 0 30 2 *`). See the type's documentation for daylight-saving changes.
    public func next(after date: Date, in zone: TimeZone) -> Date? {
        let after = date.timeIntervalSince1970
        guard after.isFinite else { return nil }
        let afterSecond = Int64(after.rounded(.down))
        let wallNow = afterSecond + Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(afterSecond))))
        // Wall times' first instants are in non-decreasing order (a skipped time maps to the end
        // of the gap), so scanning matching wall times from the current one, the earliest instant
        // after `date` is found once a wall time's first instant is past the best so far.
        var wall = CivilTime.floorDivide(wallNow, 60) * 60 + 60
        // In the second pass of a repeated hour, that hour's wall times lie behind the current one.
        if firesInBothPasses { wall -= 3600 }
        let lastYear = CivilTime(wallSeconds: wall).year + Self.searchYears
        var best: Int64?
        while let candidate = nextMatchingWallTime(from: wall, lastYear: lastYear) {
            let instants = CivilTime.instants(ofWallTime: candidate, in: zone)
            // Later wall times' first instants come no earlier: nothing after this can beat `best`.
            if let best, let first = instants.first, first >= best { break }
            for instant in firesInBothPasses ? instants : Array(instants.prefix(1)) where Double(instant) > after {
                best = min(best ?? instant, instant)
            }
            wall = candidate + 60
        }
        return best.map { Date(timeIntervalSince1970: Double($0)) }
    }

    /// The first wall time (seconds since 1970 as if the zone were UTC) at or after `start` (a whole
    /// minute) that the fields match, up to the end of `lastYear`.
    func nextMatchingWallTime(from start: Int64, lastYear: Int) -> Int64? {
        var time = CivilTime(wallSeconds: start)
        var (year, month, day, hour, minute) = (time.year, time.month, time.day, time.hour, time.minute)
        func nextDay() { day += 1; hour = 0; minute = 0 }
        while year <= lastYear {
            if months & (1 << UInt64(month)) == 0 || day > CivilTime.daysIn(year: year, month: month) {
                month += 1
                if month > 12 { month = 1; year += 1 }
                day = 1; hour = 0; minute = 0
                continue
            }
            guard matches(year: year, month: month, day: day) else { nextDay(); continue }
            guard let matchingHour = Self.first(in: hours, from: hour) else { nextDay(); continue }
            if matchingHour != hour { hour = matchingHour; minute = 0 }
            guard let matchingMinute = Self.first(in: minutes, from: minute) else { hour += 1; minute = 0; continue }
            time = CivilTime(year: year, month: month, day: day, hour: hour, minute: matchingMinute)
            return time.wallSeconds
        }
        return nil
    }

    /// The smallest value at or after `from` whose bit is set.
    private static func first(in bits: UInt64, from: Int) -> Int? {
        guard from < 64 else { return nil }
        let remaining = bits & ~((UInt64(1) << UInt64(from)) &- 1)
        return remaining == 0 ? nil : remaining.trailingZeroBitCount
    }
}

/// Proleptic Gregorian calendar arithmetic on "wall seconds" (a local date and time counted in
/// seconds since 1970-01-01 00:00 as if the zone were UTC), and the mapping from wall time to
/// instants in a `TimeZone`. No `Calendar`: its handling of skipped and repeated local times
/// differs between Foundation versions; this needs only `TimeZone.secondsFromGMT(for:)`.
struct CivilTime: Equatable {
    var year: Int, month: Int, day: Int, hour: Int, minute: Int

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        (self.year, self.month, self.day, self.hour, self.minute) = (year, month, day, hour, minute)
    }

    init(wallSeconds: Int64) {
        let days = Self.floorDivide(wallSeconds, 86_400)
        let secondOfDay = Int(wallSeconds - days * 86_400)
        (year, month, day) = Self.civil(fromDays: days)
        hour = secondOfDay / 3600
        minute = secondOfDay % 3600 / 60
    }

    var wallSeconds: Int64 {
        Self.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60)
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01.
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        CivilDays.daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day))
    }

    static func civil(fromDays value: Int64) -> (year: Int, month: Int, day: Int) {
        let (year, month, day) = CivilDays.civil(fromDays: value)
        return (Int(year), Int(month), Int(day))
    }

    /// 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday).
    static func weekday(year: Int, month: Int, day: Int) -> Int {
        Int(((days(year: year, month: month, day: day) + 4) % 7 + 7) % 7)
    }

    /// `2025-03-09T07:00:00Z`: UTC, whole seconds (ticks are whole seconds).
    static func iso8601(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let time = CivilTime(wallSeconds: seconds)
        let second = Int(seconds - floorDivide(seconds, 60) * 60)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(time.year, 4))-\(pad(time.month, 2))-\(pad(time.day, 2))T\(pad(time.hour, 2)):\(pad(time.minute, 2)):\(pad(second, 2))Z"
    }

    private static func offset(at instant: Int64, in zone: TimeZone) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant))))
    }

    /// The instants at which the zone's clocks show `wall`, earliest first: one, two in a repeated
    /// hour, or — in a gap — the one instant the clocks jump past it.
    static func instants(ofWallTime wall: Int64, in zone: TimeZone) -> [Int64] {
        // The offsets in force within a day of the wall time (a zone's offset is within ±14 h).
        let offsets = Set([wall - 86_400, wall, wall + 86_400].map { offset(at: $0, in: zone) })
        let candidates = offsets.map { wall - $0 }
        let valid = candidates.filter { $0 + offset(at: $0, in: zone) == wall }.sorted()
        if !valid.isEmpty { return valid }
        // A gap: local time jumps over `wall` between these two instants. Find the jump.
        var low = candidates.min() ?? wall, high = candidates.max() ?? wall
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if middle + offset(at: middle, in: zone) < wall { low = middle } else { high = middle }
        }
        return [high]
    }
}
