import Foundation

/// Why an interval (`--every`) was refused.
public enum ScheduleIntervalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a sequence of `<number><unit>` with units s, m, h, d.
    case invalid(String)
    /// Under one second.
    case tooShort(String)
    /// Over 366 days.
    case tooLong(String)

    public var description: String {
        switch self {
        case .invalid(let text): return "bad interval '\(text)' (use a number and a unit: 30s, 5m, 1h, 1d, or 1h30m)"
        case .tooShort(let text): return "interval '\(text)' is shorter than the minimum of 1s"
        case .tooLong(let text): return "interval '\(text)' is longer than the maximum of 366d"
        }
    }
}

/// A cadence in elapsed time: every N seconds (at least 1), written `30s`, `5m`, `1h`, `1d` or
/// combined (`1h30m`).
///
/// Ticks are the whole multiples of the interval since 1970-01-01 00:00 UTC, so `every 1h` fires on
/// the hour (UTC), `every 30s` at :00 and :30, and every coordinator computes the same tick
/// instants. Daylight-saving changes do not affect it.
public struct ScheduleInterval: Sendable, Hashable, CustomStringConvertible {
    public let seconds: Int

    public static let minimum = 1
    public static let maximum = 366 * 86_400

    public init(seconds: Int) throws(ScheduleIntervalError) {
        guard seconds >= Self.minimum else { throw .tooShort("\(seconds)s") }
        guard seconds <= Self.maximum else { throw .tooLong("\(seconds)s") }
        self.seconds = seconds
    }

    public init(parsing text: String) throws(ScheduleIntervalError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        var total = 0
        var digits = ""
        var sawUnit = false
        for character in trimmed {
            if character.isASCII && character.isNumber {
                digits.append(character)
                guard digits.count <= 9 else { throw .tooLong(text) }
                continue
            }
            let unit: Int
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86_400
            default: throw .invalid(text)
            }
            guard let value = Int(digits) else { throw .invalid(text) }
            total += value * unit
            guard total <= Self.maximum else { throw .tooLong(text) }
            digits = ""
            sawUnit = true
        }
        guard sawUnit, digits.isEmpty else { throw .invalid(text) }
        guard total >= Self.minimum else { throw .tooShort(text) }
        seconds = total
    }

    /// The canonical spelling: `1h30m`, `45s`, `2d`.
    public var description: String {
        var rest = seconds
        var text = ""
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
    }

    /// The first tick strictly after `date`.
    public func next(after date: Date) -> Date {
        let period = Double(seconds)
        return Date(timeIntervalSince1970: ((date.timeIntervalSince1970 / period).rounded(.down) + 1) * period)
    }
}
