import Foundation

/// Conversion between `Date` and PostgreSQL's `timestamptz` text form, without `DateFormatter`
/// (which is slow, not thread-safe to mutate, and loses microseconds).
enum PostgresTimestamp {
    /// `2026-11-22 03:00:00.123456+00` — UTC, always six fractional digits.
    static func format(_ date: Date) -> String {
        let totalMicros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        var seconds = totalMicros / 1_000_000
        var micros = totalMicros % 1_000_000
        if micros < 0 {
            micros += 1_000_000
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = CivilDays.civil(fromDays: days)
        var text = ""
        text.reserveCapacity(32)
        let bc = year <= 0
        text += pad(bc ? 1 - year : year, 4)
        text += "-" + pad(month, 2) + "-" + pad(day, 2) + " "
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay % 3600 / 60, 2) + ":" + pad(secondOfDay % 60, 2)
        text += "." + pad(micros, 6) + "+00"
        if bc { text += " BC" }
        return text
    }

    /// Parses `timestamptz`/`timestamp`/`date` output in the ISO DateStyle: `YYYY-MM-DD[ |T]HH:MM:SS[.ffffff][Z|±HH[:MM[:SS]]][ BC]`,
    /// or `infinity` / `-infinity`. A value without an offset is taken as UTC.
    static func parse(_ text: String) -> Date? {
        if text == "infinity" { return .distantFuture }
        if text == "-infinity" { return .distantPast }
        var bytes = Array(text.utf8)
        var bc = false
        if bytes.count > 3, bytes.suffix(3) == Array(" BC".utf8) {
            bc = true
            bytes.removeLast(3)
        }
        var index = 0
        func number(minDigits: Int, maxDigits: Int = 0) -> Int64? {
            let limit = maxDigits == 0 ? Int.max : maxDigits
            var value: Int64 = 0
            var count = 0
            while index < bytes.count, count < limit, bytes[index] >= 48, bytes[index] <= 57 {
                value = value * 10 + Int64(bytes[index] - 48)
                index += 1
                count += 1
            }
            return count >= minDigits ? value : nil
        }
        func expect(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        guard var year = number(minDigits: 4), expect("-"),
              let month = number(minDigits: 2, maxDigits: 2), expect("-"),
              let day = number(minDigits: 2, maxDigits: 2),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        if bc { year = 1 - year }
        var secondOfDay: Int64 = 0
        var micros: Int64 = 0
        var offsetSeconds: Int64 = 0
        if index < bytes.count {
            guard expect(" ") || expect("T"),
                  let hour = number(minDigits: 2, maxDigits: 2), expect(":"),
                  let minute = number(minDigits: 2, maxDigits: 2), expect(":"),
                  let second = number(minDigits: 2, maxDigits: 2),
                  hour <= 24, minute < 60, second <= 60
            else { return nil }
            secondOfDay = hour * 3600 + minute * 60 + second
            if expect(".") {
                let start = index
                guard let fraction = number(minDigits: 1) else { return nil }
                let digits = index - start
                if digits <= 6 {
                    var scaled = fraction
                    for _ in digits..<6 { scaled *= 10 }
                    micros = scaled
                } else {
                    // More digits than microseconds: keep the first six (PostgreSQL never sends more).
                    var scaled = fraction
                    for _ in 6..<digits { scaled /= 10 }
                    micros = scaled
                }
            }
            if index < bytes.count {
                if expect("Z") {
                    offsetSeconds = 0
                } else {
                    let sign: Int64
                    if expect("+") { sign = 1 } else if expect("-") { sign = -1 } else { return nil }
                    guard let offsetHours = number(minDigits: 2, maxDigits: 2) else { return nil }
                    var offset = offsetHours * 3600
                    if expect(":") {
                        guard let offsetMinutes = number(minDigits: 2, maxDigits: 2) else { return nil }
                        offset += offsetMinutes * 60
                        if expect(":") {
                            guard let offsetSecondsPart = number(minDigits: 2, maxDigits: 2) else { return nil }
                            offset += offsetSecondsPart
                        }
                    } else if let offsetMinutes = number(minDigits: 2, maxDigits: 2) {
                        offset += offsetMinutes * 60
                    }
                    offsetSeconds = sign * offset
                }
            }
            guard index == bytes.count else { return nil }
        }
        let days = CivilDays.daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + secondOfDay - offsetSeconds
        // One correctly rounded division, so a Date made from whole microseconds round-trips exactly.
        return Date(timeIntervalSince1970: Double(seconds * 1_000_000 + micros) / 1_000_000)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

}
