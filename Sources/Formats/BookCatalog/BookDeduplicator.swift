/// Groups an export's rows into books: same ISBN-13, else same title and first-author key.
///
/// A row with an ISBN-13 joins the group of that ISBN; failing that, a group with the same key
/// and no ISBN yet (the ISBN-less rows of the same book); failing that it starts a group. Two rows
/// with different valid ISBNs are different editions and stay apart even when their keys agree. A
/// row with no valid ISBN joins the first group with its key. Order is the file's, so the result is
/// deterministic and each group's primary row is its earliest.
public enum BookDeduplicator {
    public static func group(_ rows: [ImportRow]) -> [BookGroup] {
        var groups: [BookGroup] = []
        var byISBN: [String: Int] = [:]
        var byKey: [String: Int] = [:]

        func join(_ index: Int, _ row: ImportRow, _ reason: BookGroup.MergeReason) {
            groups[index].merges.append(.init(line: row.line, intoLine: groups[index].primary.line, reason: reason))
            groups[index].rows.append(row)
        }
        func start(_ row: ImportRow) -> Int {
            groups.append(BookGroup(rows: [row]))
            return groups.count - 1
        }

        for row in rows {
            let key = row.matchKey
            if let isbn = row.isbn.isbn13 {
                if let index = byISBN[isbn] {
                    join(index, row, .isbn)
                } else if let key, let index = byKey[key], groups[index].isbn13 == nil {
                    join(index, row, .titleAuthor)
                    byISBN[isbn] = index
                } else {
                    let index = start(row)
                    byISBN[isbn] = index
                    if let key, byKey[key] == nil { byKey[key] = index }
                }
            } else if let key, let index = byKey[key] {
                join(index, row, .titleAuthor)
            } else {
                let index = start(row)
                if let key { byKey[key] = index }
            }
        }
        return groups
    }
}
