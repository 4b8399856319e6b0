import Foundation

/// The labelled set of `reparto bench import`: export rows without ISBN whose true book is known,
/// and the works the Open Library stand-in holds for them, some of them misleading near-matches
/// (another book of the same title by an author of the same surname, a sequel, a book by the
/// author's sister). After the import each row's book is compared with its truth.
public enum ImportBenchLabels {
    /// What a labelled row is meant to test.
    public enum Case: String, CaseIterable, Sendable {
        /// Title and author as Open Library has them.
        case exact
        /// A series suffix on the title, the author as "Last, First".
        case seriesAndTurnedName
        /// The same title by another author of the same surname comes first in the answer.
        case namesakeFirst
        /// The true book is not in Open Library; the same title by the author's namesake is.
        case onlyNamesake
        /// A sequel whose title begins with the row's comes first.
        case sequelFirst
        /// No author in the row; the true book and a namesake's both answer.
        case noAuthor
        /// The author's surname only.
        case surnameOnly
    }

    /// A work in the stand-in's search index.
    public struct Work: Sendable, Hashable {
        public var key: String
        public var title: String
        public var authors: [String]
        public var year: Int
        public var coverID: Int
        public var isbn13: String
    }

    /// One labelled row.
    public struct Row: Sendable, Hashable {
        /// The export's `Book Id` (`L0`, `L1`, …): found again on the imported row.
        public var sourceID: String
        public var testCase: Case
        public var title: String
        public var author: String
        /// The work the row is (nil: not in Open Library, so any match is the wrong book).
        public var truth: String?
        /// Whether the matcher is expected to take a book without a person.
        public var expectsMatch: Bool
    }

    static let firstNames = ["Mara", "Tomas", "Ilse", "Jonah", "Petra", "Anselm", "Orla", "Viktor", "Selma", "Rafael", "Greta", "Lucian",
                             "Noor", "Emil", "Sanne", "Kasimir"]
    static let otherFirstNames = ["Harriet", "Bruno", "Delphine", "Oskar", "Wilma", "Cyrus", "Agathe", "Linus"]
    static let surnames = ["Quillon", "Barrowe", "Castellan", "Dunmore", "Everly", "Fairbrook", "Galloway", "Hartwell", "Ingrams",
                           "Jessamy", "Kettering", "Lockhart", "Marchbank", "Northcote", "Ormsby", "Pendry"]
    static let adjectives = ["Amber", "Silent", "Copper", "Hollow", "Winter", "Crimson", "Distant", "Gilded", "Broken", "Velvet",
                             "Sunken", "Pale", "Restless", "Iron", "Northern", "Quiet"]
    static let nouns = ["Harbor", "Orchard", "Lantern", "Meadow", "Tide", "Archive", "Bridge", "Garden", "Lighthouse", "Citadel",
                        "Station", "Ferry", "Observatory", "Vineyard", "Foundry", "Chapel"]

    /// `count` rows cycling through the cases, their works and the misleading ones, from `first`
    /// (so two runs can use different books).
    public static func make(count: Int, first: Int = 0) -> (rows: [Row], works: [Work]) {
        var rows: [Row] = [], works: [Work] = []
        for index in 0..<max(0, count) {
            let n = first + index
            let title = "The \(adjectives[n % 16]) \(nouns[(n / 16) % 16]) of \(surnames[(n / 256) % 16])ton \(roman(n / 4096 + 1))"
            let first = firstNames[(n * 7) % firstNames.count], surname = surnames[(n * 5 + 3) % surnames.count]
            let author = "\(first) \(surname)", namesake = "\(otherFirstNames[n % otherFirstNames.count]) \(surname)"
            func work(_ suffix: String, _ title: String, _ authors: [String], year: Int) -> Work {
                let id = 900_000 + n * 10 + works.count % 10
                return Work(key: "/works/OL\(n)\(suffix)W", title: title, authors: authors, year: year, coverID: id,
                            isbn13: SyntheticLibrary.isbn13(700_000_000 + n * 10 + works.count % 10))
            }
            let truth = work("T", title, [author], year: 1950 + n % 70)
            let testCase = Case.allCases[index % Case.allCases.count]
            var rowTitle = title, rowAuthor = author, expects = true, truthKey: String? = truth.key
            switch testCase {
            case .exact:
                works.append(truth)
            case .seriesAndTurnedName:
                rowTitle = "\(title) (\(nouns[n % 16]) Cycle, #\(n % 5 + 1))"
                rowAuthor = "\(surname), \(first)"
                works.append(truth)
            case .namesakeFirst:
                works.append(work("N", title, [namesake], year: 2001 + n % 20))
                works.append(truth)
            case .onlyNamesake:
                works.append(work("N", title, [namesake], year: 2001 + n % 20))
                truthKey = nil
                expects = false
            case .sequelFirst:
                works.append(work("S", "\(title): The Return", [author], year: 1990 + n % 20))
                works.append(truth)
            case .noAuthor:
                rowAuthor = ""
                works.append(work("N", title, [namesake], year: 2001 + n % 20))
                works.append(truth)
                expects = false
            case .surnameOnly:
                rowAuthor = surname
                works.append(truth)
            }
            rows.append(Row(sourceID: "L\(n)", testCase: testCase, title: rowTitle, author: rowAuthor, truth: truthKey, expectsMatch: expects))
        }
        return (rows, works)
    }

    /// The rows as Goodreads export lines (no ISBN), in `SyntheticLibrary`'s columns.
    public static func exportLines(_ rows: [Row]) -> [String] {
        rows.map { row in
            let quoted = { (text: String) in "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            return "\(row.sourceID),\(quoted(row.title)),\(quoted(row.author)),,,\"=\"\"\"\"\",\"=\"\"\"\"\",0,4.0,Bench Press,Paperback,"
                + "300,2001,1999,,2023/12/01,\"bench\",,read,,,,1,1"
        }
    }

    /// I, II, III, … (1 to 39).
    static func roman(_ n: Int) -> String {
        let tens = ["", "X", "XX", "XXX"], ones = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"]
        return tens[min(3, n / 10)] + ones[n % 10]
    }
}
