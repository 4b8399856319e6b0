import Foundation

/// The bench's shelf: synthetic books (titles, authors, ISBNs) spread over photos, with the
/// spines as a model reads them, some misread the ways real models misread (a dropped
/// subtitle, OCR confusions, an author's initials). Deterministic for a given size.
struct ScanBenchFixtures: Sendable {
    struct Book: Sendable, Hashable {
        var title: String
        var subtitle: String?
        var author: String
        var isbn13: String
        var year: Int
        var full: String { subtitle.map { "\(title): \($0)" } ?? title }
    }

    struct Spine: Sendable, Hashable {
        /// Index into ``books``: what the spine really is.
        var book: Int
        var title: String
        var author: String?
        var misread: String?
    }

    var books: [Book]
    /// Per photo, its spines left to right.
    var photos: [[Spine]]

    static let adjectives = ["Silent", "Iron", "Hidden", "Last", "Winter", "Golden", "Broken", "Distant", "Crimson", "Quiet",
                             "Wandering", "Forgotten", "Burning", "Hollow", "Northern", "Salt", "Glass", "Paper", "Midnight", "Sunken",
                             "Gentle", "Restless", "Painted", "Lantern", "Shadow", "Copper", "Velvet", "Autumn", "Electric", "Patient"]
    static let nouns = ["Harbour", "Orchard", "Kingdom", "Garden", "Lighthouse", "River", "Library", "Mountain", "Station", "Archive",
                        "Island", "Cathedral", "Meadow", "Carnival", "Observatory", "Forest", "Bridge", "Circus", "Monastery", "Valley",
                        "Engine", "Atlas", "Theatre", "Compass", "Chronicle", "Cartographer", "Apprentice", "Alchemist", "Navigator", "Widow"]
    static let subtitles = ["A Novel", "Stories", "A Memoir", "Poems", "An Adventure", "A Mystery", "Essays on Distance"]
    static let firsts = ["Margaret", "Thomas", "Eleanor", "Samuel", "Harriet", "Julian", "Beatrice", "Oliver", "Cecilia", "Arthur",
                         "Imogen", "Felix", "Rosalind", "Edmund", "Vivian", "Lionel", "Agnes", "Rupert", "Isadora", "Conrad"]
    static let lasts = ["Whitfield", "Ashcombe", "Penhallow", "Marchetti", "Okonkwo", "Lindqvist", "Delacroix", "Hargreaves", "Nakamura",
                        "Fairweather", "Castellanos", "Blackwood", "Ostrowski", "Abernathy", "Villanueva", "Kowalczyk", "Thistlewood",
                        "Montgomery", "Szabo", "Galloway"]

    /// `spines` books over `photos` photos, `misread` of them misread (a third each way).
    static func make(photos: Int, spines: Int, misread: Int) -> ScanBenchFixtures {
        var random = SplitMix(seed: 0x5EED_B00C)
        var titles = Set<String>()
        var books: [Book] = []
        while books.count < spines {
            let title = "The \(adjectives[random.next(adjectives.count)]) \(nouns[random.next(nouns.count)])"
            guard titles.insert(title).inserted else { continue }
            let subtitle: String? = books.count % 3 == 0 ? subtitles[random.next(subtitles.count)] : nil
            let author = "\(firsts[random.next(firsts.count)]) \(lasts[random.next(lasts.count)])"
            books.append(Book(title: title, subtitle: subtitle, author: author, isbn13: isbn13(978_000_000_000 + 7_919 * books.count),
                              year: 1950 + random.next(70)))
        }
        var list = books.indices.map { Spine(book: $0, title: books[$0].full, author: books[$0].author) }
        // Misreads, spread over the shelf: every tenth spine, cycling through the three ways.
        var changed = 0, index = 0
        while changed < misread, index < list.count {
            let book = books[list[index].book]
            switch changed % 3 {
            case 0 where book.subtitle != nil:
                list[index].title = book.title
                list[index].misread = "subtitle dropped"
            case 0, 1:
                list[index].title = ocr(book.full)
                list[index].misread = "OCR confusions"
            default:
                let parts = book.author.split(separator: " ")
                list[index].author = "\(parts[0].prefix(1)). \(parts.dropFirst().joined(separator: " "))"
                list[index].misread = "author as initials"
            }
            changed += 1
            index += max(1, list.count / max(1, misread))
        }
        let perPhoto = Int((Double(list.count) / Double(max(1, photos))).rounded(.up))
        let shelves = stride(from: 0, to: list.count, by: perPhoto).map { Array(list[$0..<min($0 + perPhoto, list.count)]) }
        return ScanBenchFixtures(books: books, photos: shelves)
    }

    /// What a model reading a worn spine gets wrong: O as 0, l as 1, m as rn.
    static func ocr(_ text: String) -> String {
        var out = text.replacingOccurrences(of: "o", with: "0")
        if let l = out.range(of: "l") { out.replaceSubrange(l, with: "1") }
        if let m = out.range(of: "m") { out.replaceSubrange(m, with: "rn") }
        return out
    }

    /// A valid ISBN-13 from its first twelve digits.
    static func isbn13(_ first12: Int) -> String {
        let digits = String(first12).compactMap { $0.wholeNumberValue }
        let sum = digits.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
        return String(first12) + String((10 - sum % 10) % 10)
    }

    /// A photo's width encodes its number (the stand-in reads it back from the JPEG header).
    static func width(ofPhoto index: Int) -> Int { 320 + 16 * index }
    static func photo(ofWidth width: Int) -> Int? { width >= 320 && (width - 320) % 16 == 0 ? (width - 320) / 16 : nil }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
