/// The dates the exports write: `2023/12/01` (Goodreads, StoryGraph), `2023-12-01` (LibraryThing),
/// `[2023-12-01]` (LibraryThing's TSV), `2014-01-21 18:49:25` (LibraryThing's 2014 CSV), `?` (unknown).
public enum ExportDate {
    /// The day as ISO 8601 `YYYY-MM-DD`, or `nil` when `text` is not a plausible date. Brackets
    /// around it and a time after it are ignored.
    public static func day(_ text: String) -> String? {
        var trimmed = Substring(text.trimmingSpaces)
        if trimmed.hasPrefix("["), trimmed.hasSuffix("]") { trimmed = trimmed.dropFirst().dropLast() }
        let date = trimmed.prefix { $0 != " " && $0 != "T" }
        let parts = date.split(separator: "/", omittingEmptySubsequences: false).count == 3
            ? date.split(separator: "/", omittingEmptySubsequences: false)
            : date.split(omittingEmptySubsequences: false) { $0 == "-" || $0 == "." }
        guard parts.count == 3, parts[0].count == 4, parts.allSatisfy({ (1...4).contains($0.count) && isDigits($0) }),
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

    /// The reading spans of StoryGraph's "Dates Read": `2023/01/02-2023/01/20`, several separated
    /// by commas, an open one (`2023/01/02-`) or a single day (taken as the day finished). Spans
    /// that are not dates are left out.
    static func spans(_ text: String) -> [(started: String?, finished: String?)] {
        text.split { $0 == "," || $0 == ";" }.compactMap { part -> (started: String?, finished: String?)? in
            let span = String(part).trimmingSpaces
            guard !span.isEmpty, span.count <= 64 else { return nil }
            if let single = day(span) { return (nil, single) }
            for dash in span.indices where span[dash] == "-" {
                let start = String(span[..<dash]), end = String(span[span.index(after: dash)...])
                let started = day(start), finished = day(end)
                if let started, let finished { return (started, finished) }
                if let started, end.trimmingSpaces.isEmpty { return (started, nil) }
            }
            return nil
        }
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func isDigits(_ text: Substring) -> Bool {
        text.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
