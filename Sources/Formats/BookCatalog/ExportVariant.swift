/// The shape of an export within its ``ExportFormat``: which header, which separator, or JSON.
/// ``BookExport/read(_:format:maxBytes:)`` reports the one it read (``BookExport/variant``).
public enum ExportVariant: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Goodreads' export until 2022: 31 columns, the last eight `Recommended For`, `Recommended By`,
    /// `Owned Copies`, `Original Purchase Date`, `Original Purchase Location`, `Condition`,
    /// `Condition Description`, `BCID`.
    case goodreads31 = "goodreads-31-columns"
    /// Goodreads' export since October 2022: 24 columns, ending `Read Count`, `Owned Copies`.
    case goodreads24 = "goodreads-24-columns"
    /// A Goodreads export with fewer of the 24 columns (23: no `Owned Copies`).
    case goodreads23 = "goodreads-23-columns"
    /// LibraryThing's CSV: `Book Id`, `Title`, `Primary Author`, … `ISBNs`, comma-separated.
    case libraryThingCSV = "librarything-csv"
    /// LibraryThing's tab-separated export: the CSV's columns, tabs between them, dates in brackets
    /// (`[2007-04-16]`), often MARC-8 diacritics as raw bytes.
    case libraryThingTSV = "librarything-tsv"
    /// LibraryThing's CSV of 2014: headers in single quotes (`'TITLE'`, `'AUTHOR (last, first)'`,
    /// `'ISBNs'`), `?` for an unknown date, subjects spanning lines.
    case libraryThing2014 = "librarything-2014-csv"
    /// LibraryThing's JSON: an object keyed by book id (`title`, `primaryauthor`, `authors`, `isbn`,
    /// `originalisbn`, `date`, `publication`, `rating`, `collections`, `tags`, `entrydate`, …).
    case libraryThingJSON = "librarything-json"
    /// StoryGraph's CSV: `Title`, `Authors`, `ISBN/UID`, `Read Status`, `Star Rating`, `Dates Read`, ….
    case storyGraph = "storygraph-csv"

    /// The format the variant belongs to.
    public var format: ExportFormat {
        switch self {
        case .goodreads31, .goodreads24, .goodreads23: .goodreads
        case .libraryThingCSV, .libraryThingTSV, .libraryThing2014, .libraryThingJSON: .libraryThing
        case .storyGraph: .storyGraph
        }
    }

    /// The columns a header must have to be read as this variant (compared case-insensitively,
    /// single quotes around a name removed); none for JSON.
    public var requiredColumns: [String] {
        switch self {
        case .goodreads31, .goodreads24, .goodreads23: ["Title", "Author", "ISBN", "ISBN13", "Exclusive Shelf"]
        case .libraryThingCSV, .libraryThingTSV: ["Title", "Primary Author", "ISBNs"]
        case .libraryThing2014: ["Title", "AUTHOR (last, first)", "ISBNs"]
        case .libraryThingJSON: []
        case .storyGraph: ["Title", "Authors", "ISBN/UID", "Read Status"]
        }
    }

    public var description: String {
        switch self {
        case .goodreads31: "Goodreads CSV, 31 columns (before October 2022)"
        case .goodreads24: "Goodreads CSV, 24 columns"
        case .goodreads23: "Goodreads CSV, 23 columns"
        case .libraryThingCSV: "LibraryThing CSV"
        case .libraryThingTSV: "LibraryThing tab-separated"
        case .libraryThing2014: "LibraryThing CSV of 2014 (quoted headers)"
        case .libraryThingJSON: "LibraryThing JSON"
        case .storyGraph: "StoryGraph CSV"
        }
    }

    /// The variant a header row shows (the first format whose columns it has: Goodreads, then
    /// LibraryThing, then StoryGraph), or only `format`'s when one is named.
    public static func detect(header: [String], delimiter: CSVTable.Delimiter = .comma,
                              format: ExportFormat? = nil) -> ExportVariant? {
        let names = Set(header.map { ExportFormat.columnName($0).lowercased() })
        func has(_ column: String) -> Bool { names.contains(column.lowercased()) }
        func hasAll(_ variant: ExportVariant) -> Bool { variant.requiredColumns.allSatisfy(has) }
        func variant(of format: ExportFormat) -> ExportVariant? {
            switch format {
            case .goodreads:
                guard hasAll(.goodreads24) else { return nil }
                if ["Recommended For", "Recommended By", "Original Purchase Date", "BCID"].contains(where: has) { return .goodreads31 }
                return header.filter { !$0.trimmingSpaces.isEmpty }.count >= 24 ? .goodreads24 : .goodreads23
            case .libraryThing:
                if hasAll(.libraryThingCSV) { return delimiter == .tab ? .libraryThingTSV : .libraryThingCSV }
                return hasAll(.libraryThing2014) ? .libraryThing2014 : nil
            case .storyGraph:
                return hasAll(.storyGraph) ? .storyGraph : nil
            }
        }
        if let format { return variant(of: format) }
        return ExportFormat.allCases.lazy.compactMap(variant(of:)).first
    }
}
