/// ISBN normalization: the export's spelling cleaned, the checksum checked, ISBN-10 made ISBN-13.
public enum ISBN {
    /// What a row's ISBN cell says once read.
    public enum Value: Sendable, Hashable {
        /// The cell is empty (or Goodreads' `=""`).
        case missing
        /// A valid ISBN: its 13 digits (an ISBN-10 converted with the 978 prefix).
        case valid(isbn13: String)
        /// Something that is not a valid ISBN: kept as written (cleaned), flagged, never dropped.
        case invalid(String)

        /// The ISBN-13 when valid.
        public var isbn13: String? {
            if case let .valid(isbn13) = self { return isbn13 }
            return nil
        }
    }

    /// The cell's text without the exports' decorations: Goodreads' `="…"`, LibraryThing's
    /// `[…]`, surrounding quotes, hyphens and spaces; a lower-case `x` check digit upper-cased.
    public static func clean(_ cell: String) -> String {
        var text = Substring(cell.trimmingSpaces)
        if text.hasPrefix("=") { text = text.dropFirst() }
        let decorations: Set<Character> = ["\"", "[", "]", "'"]
        text = text.drop { decorations.contains($0) }
        while let last = text.last, decorations.contains(last) { text = text.dropLast() }
        return String(text.filter { $0 != "-" && $0 != " " && $0 != "\u{2010}" && $0 != "\u{2011}" && $0 != "\t" })
            .uppercased()
    }

    /// Reads one ISBN cell (either length).
    public static func parse(_ cell: String) -> Value {
        let text = clean(cell)
        if text.isEmpty { return .missing }
        if let isbn13 = normalized(text) { return .valid(isbn13: isbn13) }
        return .invalid(text)
    }

    /// The ISBN-13 of a cleaned ISBN-10 or ISBN-13 whose checksum holds, else `nil`.
    public static func normalized(_ text: String) -> String? {
        let chars = Array(text)
        if chars.count == 13, isValidISBN13(chars) { return text }
        if chars.count == 10, isValidISBN10(chars) { return isbn13(fromISBN10: chars) }
        return nil
    }

    /// The ISBN-13 to name a book by among a list of its editions' ISBNs (any spelling): the
    /// first valid ISBN-13, else the first valid ISBN-10 converted, else nil.
    public static func preferredISBN13(in list: [String]) -> String? {
        let cleaned = list.map(clean)
        if let isbn13 = cleaned.first(where: { $0.count == 13 && isValidISBN13(Array($0)) }) { return isbn13 }
        return cleaned.lazy.filter { $0.count == 10 }.compactMap(normalized).first
    }

    /// True when `chars` are 9 digits and a check character (digit or `X`) that satisfy
    /// Σ (10 − i) · dᵢ ≡ 0 (mod 11).
    static func isValidISBN10(_ chars: [Character]) -> Bool {
        guard chars.count == 10 else { return false }
        var sum = 0
        for (i, c) in chars.enumerated() {
            let value: Int
            if let digit = c.wholeNumberValue, c.isASCII { value = digit }
            else if c == "X" && i == 9 { value = 10 }
            else { return false }
            sum += (10 - i) * value
        }
        return sum % 11 == 0
    }

    /// True when `chars` are 13 digits starting 978 or 979 whose EAN-13 checksum holds.
    static func isValidISBN13(_ chars: [Character]) -> Bool {
        guard chars.count == 13, chars.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        let prefix = String(chars.prefix(3))
        guard prefix == "978" || prefix == "979" else { return false }
        return ean13Sum(chars.map { $0.wholeNumberValue! }) % 10 == 0
    }

    /// 978 + the first nine digits + the EAN-13 check digit.
    static func isbn13(fromISBN10 chars: [Character]) -> String {
        let body = [9, 7, 8] + chars.prefix(9).map { $0.wholeNumberValue! }
        let check = (10 - ean13Sum(body) % 10) % 10
        return body.map(String.init).joined() + String(check)
    }

    private static func ean13Sum(_ digits: [Int]) -> Int {
        digits.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
    }
}
