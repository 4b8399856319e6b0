import Foundation

/// LibraryThing's JSON export: an object keyed by book id, each book an object with `title`,
/// `primaryauthor` ("Last, First"), `authors` (`[{"lf", "fl", "role"}]`), `isbn` (an object
/// `{"0": ISBN-10, "2": ISBN-13}`, a list, or a string), `originalisbn`, `date` (`?` when unknown),
/// `publication`, `pages`, `rating`, `tags`, `collections`, `entrydate`, `datestarted`, `dateread`,
/// `review`, `books_id`. Strings may carry HTML character references (`&amp;`). A top-level
/// array of such objects is read the same way.
enum LibraryThingJSON {
    /// The books read: the rows, the books left out, the notes, and the line each book starts on
    /// (to place the text repairs).
    struct Read {
        var rows: [ImportRow] = []
        var problems: [RowProblem] = []
        var notes: [RowNote] = []
        var lines: [Int] = []
    }

    /// True when the text starts, after whitespace, with `{` or `[`.
    static func looksLikeJSON(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first(where: { !$0.properties.isWhitespace }) else { return false }
        return first == "{" || first == "["
    }

    static func read(_ text: String) throws(ExportJSONError) -> Read {
        let members = try JSONOutline.members(of: text)
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(text.utf8)) } catch { throw .malformed }
        var books: [(line: Int, key: String?, value: Any)] = []
        if let dictionary = object as? [String: Any] {
            var seen = Set<String>()
            for member in members {
                guard let key = member.key, seen.insert(key).inserted, let value = dictionary[key] else { continue }
                books.append((member.line, key, value))
            }
            // A key the outline spelled differently (an escape it could not decode) still counts.
            for key in dictionary.keys.sorted() where !seen.contains(key) { books.append((1, key, dictionary[key] as Any)) }
        } else if let array = object as? [Any] {
            books = array.enumerated().map { (members.indices.contains($0.offset) ? members[$0.offset].line : 1, nil, $0.element) }
        } else {
            throw .notLibraryThing
        }
        guard books.contains(where: { ($0.value as? [String: Any])?["title"] != nil }) else { throw .notLibraryThing }
        var read = Read()
        for book in books {
            read.lines.append(book.line)
            guard let fields = book.value as? [String: Any] else {
                read.problems.append(.missingTitle(line: book.line))
                continue
            }
            switch row(fields, key: book.key, line: book.line) {
            case let .success(mapped):
                read.rows.append(mapped.row)
                read.notes += mapped.notes
            case let .failure(problem):
                read.problems.append(problem)
            }
        }
        return read
    }

    /// One book as an ``ImportRow``, or the problem that keeps it out.
    static func row(_ book: [String: Any], key: String?, line: Int) -> Result<RowMapper.Mapped, RowProblem> {
        let title = decoded(book["title"]).collapsingSpaces
        guard !title.isEmpty else { return .failure(.missingTitle(line: line)) }
        var names: [String] = []
        let primary = decoded(book["primaryauthor"])
        if !primary.isEmpty { names.append(PersonName.turned(primary)) }
        for case let author as [String: Any] in (book["authors"] as? [Any]) ?? [] {
            let firstLast = decoded(author["fl"])
            names.append(firstLast.isEmpty ? PersonName.turned(decoded(author["lf"])) : firstLast)
        }
        var cells: [(column: String, cell: ISBNCell)] = []
        switch book["isbn"] {
        case let keyed as [String: Any]:
            // "2" is the ISBN-13, "0" the ISBN-10.
            let slots = ["2", "0"] + keyed.keys.sorted().filter { $0 != "2" && $0 != "0" }
            cells += slots.compactMap { text(keyed[$0]) }.map { ("isbn", ISBNCell($0)) }
        case let list as [Any]:
            cells += list.compactMap(text).map { ("isbn", ISBNCell($0)) }
        case let value?:
            if let value = text(value) { cells.append(("isbn", ISBNCell(value))) }
        case nil:
            break
        }
        if let original = text(book["originalisbn"]) { cells.append(("originalisbn", ISBNCell(original))) }
        var seen = Set<RowNote>()
        let notes = cells.filter { $0.cell.damage != .notAnISBN }
            .compactMap { $0.cell.note(line: line, column: $0.column) }.filter { seen.insert($0).inserted }
        let publication = decoded(book["publication"])
        let dateRead = ExportDate.day(text(book["dateread"]) ?? "")
        let user = UserFields(
            rating: rating(book["rating"]),
            shelves: strings(book["tags"]),
            status: RowMapper.libraryThingStatus(collections: strings(book["collections"]), dateRead: dateRead),
            dateAdded: ExportDate.day(text(book["entrydate"]) ?? ""),
            dateRead: dateRead,
            dateStarted: ExportDate.day(text(book["datestarted"]) ?? ""))
        let row = ImportRow(
            line: line, title: title, authors: RowMapper.names(names), isbn: RowMapper.best(cells.map(\.cell.value)),
            sourceID: text(book["books_id"]) ?? key, publisher: RowMapper.publisher(publication),
            pages: RowMapper.integer(text(book["pages"]) ?? "") ?? RowMapper.pages(publication),
            year: ExportDate.year(text(book["date"]) ?? ""), user: user,
            review: HTMLText.review(decoded(book["review"])))
        return .success(RowMapper.Mapped(row: row, notes: notes))
    }

    /// A string or a whole number as text; anything else `nil`.
    static func text(_ value: Any?) -> String? {
        switch value {
        case let string as String: return string.trimmingSpaces.isEmpty ? nil : string.trimmingSpaces
        case let number as Int: return String(number)
        case let number as NSNumber:
            let value = number.doubleValue
            guard value.isFinite, value.rounded() == value, abs(value) < 1e15 else { return nil }
            return String(Int64(value))
        default: return nil
        }
    }

    /// A string with its HTML character references decoded; empty when absent.
    static func decoded(_ value: Any?) -> String {
        text(value).map(HTMLText.decodingEntities) ?? ""
    }

    /// The strings of a list (or a lone string).
    static func strings(_ value: Any?) -> [String] {
        if let list = value as? [Any] { return list.compactMap(text).map(HTMLText.decodingEntities) }
        return text(value).map { [HTMLText.decodingEntities($0)] } ?? []
    }

    /// A rating written as a number or as text.
    static func rating(_ value: Any?) -> Double? {
        switch value {
        case let number as Int: return RowMapper.rating(Double(number))
        case let number as Double: return RowMapper.rating(number)
        case let number as NSNumber: return RowMapper.rating(number.doubleValue)
        case let string as String: return RowMapper.rating(string)
        default: return nil
        }
    }
}
