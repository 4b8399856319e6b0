import Testing
@testable import BookCatalog

@Suite("Deduplication", .timeLimit(.minutes(1)))
struct BookDeduplicatorTests {
    func row(_ line: Int, _ title: String, _ author: String, _ isbn: ISBN.Value = .missing) -> ImportRow {
        ImportRow(line: line, title: title, authors: [author], isbn: isbn)
    }

    @Test func differentEditionsStayApart() {
        let groups = BookDeduplicator.group([
            row(2, "Dune", "Frank Herbert", .valid(isbn13: "9780441172719")),
            row(3, "Dune", "Frank Herbert", .valid(isbn13: "9780593099322")),
        ])
        #expect(groups.count == 2)
    }

    @Test func rowsWithoutISBNJoinTheEditionWithTheirKey() {
        let groups = BookDeduplicator.group([
            row(2, "Dune", "Frank Herbert", .valid(isbn13: "9780441172719")),
            row(3, "DUNE (Dune, #1)", "Herbert, Frank"),
            row(4, "Dune", "Frank Herbert", .invalid("123")),
        ])
        #expect(groups.count == 1)
        #expect(groups[0].merges.map(\.reason) == [.titleAuthor, .titleAuthor])
        #expect(groups[0].invalidISBNs == ["123"])
    }

    @Test func anISBNArrivingLaterJoinsTheISBNlessGroup() {
        let groups = BookDeduplicator.group([
            row(2, "Kindred", "Octavia Butler"),
            row(3, "Kindred", "Octavia Butler", .valid(isbn13: "9780807014295")),
            row(4, "Kindred (Beacon)", "Someone", .valid(isbn13: "9780807014295")),
        ])
        #expect(groups.count == 1)
        #expect(groups[0].isbn13 == "9780807014295")
        #expect(groups[0].merges == [.init(line: 3, intoLine: 2, reason: .titleAuthor), .init(line: 4, intoLine: 2, reason: .isbn)])
    }

    @Test func sameTitleByAnotherAuthorIsAnotherBook() {
        let groups = BookDeduplicator.group([row(2, "Emma", "Jane Austen"), row(3, "Emma", "Someone Else")])
        #expect(groups.count == 2)
    }

    @Test func everyRowLandsInExactlyOneGroup() {
        var rows: [ImportRow] = []
        for i in 0..<300 {
            let isbn: ISBN.Value = i % 3 == 0 ? .valid(isbn13: "978000000\(i % 7)") : (i % 3 == 1 ? .missing : .invalid("x\(i)"))
            rows.append(row(i + 2, "Title \(i % 11)", "Author \(i % 5)", isbn))
        }
        let groups = BookDeduplicator.group(rows)
        #expect(groups.flatMap(\.rows).map(\.line).sorted() == rows.map(\.line))
        #expect(groups.reduce(0) { $0 + $1.merges.count } == rows.count - groups.count)
    }
}
