/// The dates the exports write: `2023/12/01` (Goodreads, StoryGraph), `2023-12-01` (LibraryThing).
public enum ExportDate {
    /// The day as ISO 8601 `YYYY-MM-DD`, or `nil` when `text` is not a plausible date.
    public static func day(_ text: String) -> String? {
        let parts = text.trimmingSpaces.split { $0 == "/" || $0 == "-" || $0 == "." }
        guard parts.count == 3, parts[0].count == 4,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1000...9999).contains(year), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    /// A four-digit year at the start of `text` ("1965", "2000-05-01").
    public static func year(_ text: String) -> Int? {
        let digits = text.trimmingSpaces.prefix { $0.isASCII && $0.isNumber }
        guard digits.count == 4, let year = Int(digits), year > 0 else { return nil }
        return year
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
