import Testing
@testable import BookCatalog

@Suite("ISBN", .timeLimit(.minutes(1)))
struct ISBNTests {
    @Test(arguments: [
        ("0441172717", "9780441172719"),
        ("030681594X", "9780306815942"),
        ("030681594x", "9780306815942"),
        ("0-306-81594-X", "9780306815942"),
        ("978-0-441-17271-9", "9780441172719"),
        ("978 0441 172719", "9780441172719"),
        ("=\"0441172717\"", "9780441172719"),
        ("[080701429X]", "9780807014295"),
        ("9791065021116", "9791065021116"),
    ])
    func validSpellings(cell: String, isbn13: String) {
        #expect(ISBN.parse(cell) == .valid(isbn13: isbn13))
    }

    @Test func emptySpellingsAreMissing() {
        for cell in ["", "  ", "=\"\"", "=", "[]"] {
            #expect(ISBN.parse(cell) == .missing, "\(cell)")
        }
    }

    @Test func invalidOnesAreKeptAndFlagged() {
        #expect(ISBN.parse("0441172718") == .invalid("0441172718"))          // wrong check digit
        #expect(ISBN.parse("9780441172710") == .invalid("9780441172710"))    // wrong check digit
        #expect(ISBN.parse("=\"12345\"") == .invalid("12345"))               // wrong length
        #expect(ISBN.parse("9771234567003") == .invalid("9771234567003"))    // an ISSN-style EAN, not a book
        #expect(ISBN.parse("04411727X7") == .invalid("04411727X7"))          // X only as the check digit
        #expect(ISBN.parse("B00ABCDEF1") == .invalid("B00ABCDEF1"))
    }

    @Test func conversionAgreesWithTheISBN13Checksum() {
        // Every valid ISBN-10 of a range converts to a valid ISBN-13 with the same nine digits.
        for n in 0..<2000 {
            let body = String(441_172_000 + n)
            let padded = String(repeating: "0", count: 9 - body.count) + body
            let sum = padded.enumerated().reduce(0) { $0 + (10 - $1.offset) * $1.element.wholeNumberValue! }
            let check = (11 - sum % 11) % 11
            let isbn10 = padded + (check == 10 ? "X" : String(check))
            guard let isbn13 = ISBN.normalized(isbn10) else {
                Issue.record("\(isbn10) should be valid")
                continue
            }
            #expect(isbn13.hasPrefix("978" + padded))
            #expect(ISBN.isValidISBN13(Array(isbn13)))
        }
    }
}
