/// One ISBN cell read with the damage exports and spreadsheets do to it (``RowNote``).
struct ISBNCell {
    /// What was wrong with the cell besides a bad checksum.
    enum Damage: Hashable {
        /// A number in scientific notation (`9.78053E+12`): the digits are lost.
        case spreadsheetNumber
        /// Nine characters that are an ISBN-10 once a leading zero is put back (proved by the checksum).
        case leadingZeroRestored
        /// Letters other than `X`, or no digit at all: a name, a word, an ASIN, `N/A`.
        case notAnISBN
    }

    /// The cell's text as written, trimmed.
    var text: String
    var value: ISBN.Value
    var damage: Damage?

    init(_ cell: String) {
        text = cell.trimmingSpaces
        let cleaned = ISBN.clean(cell)
        if cleaned.isEmpty {
            (value, damage) = (.missing, nil)
        } else if Self.isScientificNotation(cleaned) {
            (value, damage) = (.invalid(cleaned), .spreadsheetNumber)
        } else if cleaned.contains(where: { $0.isLetter && $0 != "X" }) || !cleaned.contains(where: \.isNumber) {
            (value, damage) = (.missing, .notAnISBN)
        } else if cleaned.count == 9, let isbn13 = ISBN.normalized("0" + cleaned) {
            (value, damage) = (.valid(isbn13: isbn13), .leadingZeroRestored)
        } else {
            (value, damage) = (ISBN.parse(cleaned), nil)
        }
    }

    /// The note for the damage, if any.
    func note(line: Int, column: String) -> RowNote? {
        switch damage {
        case .spreadsheetNumber: .spreadsheetNumber(line: line, column: column, text: text)
        case .leadingZeroRestored: value.isbn13.map { .leadingZeroRestored(line: line, column: column, text: text, isbn13: $0) }
        case .notAnISBN: .notAnISBN(line: line, column: column, text: text)
        case nil: nil
        }
    }

    /// `9.78053E+12`, `9,78053E+12`, `9E12`: a mantissa, `E`, an optional sign, an exponent.
    static func isScientificNotation(_ text: String) -> Bool {
        let parts = text.uppercased().split(separator: "E", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let mantissa = parts[0].split(omittingEmptySubsequences: false, whereSeparator: { $0 == "." || $0 == "," })
        var exponent = parts[1]
        if exponent.first == "+" || exponent.first == "-" { exponent = exponent.dropFirst() }
        func digits(_ s: Substring) -> Bool { !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
        return (1...2).contains(mantissa.count) && mantissa.allSatisfy(digits) && digits(exponent)
    }
}
