import Foundation

/// A generated Goodreads export for `reparto bench import`: `books` distinct books with valid
/// ISBN-13s (from `first`, so two runs can ask about different books), every 33rd book listed
/// twice (a duplicate to merge) and every 100th row with a broken ISBN-10 besides its ISBN-13.
public enum SyntheticLibrary {
    public static let header = "Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies"

    /// The ISBN-13 of book `n` (978 + nine digits + the EAN check digit).
    public static func isbn13(_ n: Int) -> String {
        let body = "978" + String(format: "%09d", n % 1_000_000_000)
        let sum = body.compactMap(\.wholeNumberValue).enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
        return body + String((10 - sum % 10) % 10)
    }

    /// The export's text and how many rows it has.
    public static func export(books: Int, first: Int, labelled: [ImportBenchLabels.Row] = []) -> (text: String, rows: Int) {
        var lines = [header]
        for index in 0..<books {
            let isbn = isbn13(first + index)
            let broken = index % 100 == 99 ? "\"=\"\"12345\"\"\"" : "\"=\"\"\"\"\""
            let row = "\(index),\"Book \(first + index) (Bench, #\(index % 7 + 1))\",Author \(index % 400),\"\(index % 400), Author\",,"
                + "\(broken),\"=\"\"\(isbn)\"\"\",\(index % 6),4.0,Bench Press,Paperback,\(100 + index % 500),2001,1999,"
                + "2024/01/0\(index % 9 + 1),2023/12/01,\"bench, shelf\",,read,,,,1,1"
            lines.append(row)
            if index % 33 == 0 { lines.append(row) }
        }
        lines += ImportBenchLabels.exportLines(labelled)
        return (lines.joined(separator: "\n") + "\n", lines.count - 1)
    }
}
