/// The library exports Reparto reads, told apart by their header rows (or, for LibraryThing's
/// JSON, by being JSON). Each has variants (``ExportVariant``).
public enum ExportFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case goodreads
    case libraryThing = "librarything"
    case storyGraph = "storygraph"

    /// The columns a header must have to be read as this format's current CSV (compared
    /// case-insensitively). Older variants name some differently (``ExportVariant/requiredColumns``).
    public var requiredColumns: [String] {
        switch self {
        case .goodreads: ["Title", "Author", "ISBN", "ISBN13", "Exclusive Shelf"]
        case .libraryThing: ["Title", "Primary Author", "ISBNs"]
        case .storyGraph: ["Title", "Authors", "ISBN/UID", "Read Status"]
        }
    }

    /// The format whose required columns the header has. Goodreads is checked first, then
    /// LibraryThing, then StoryGraph; their required columns do not overlap enough to be confused
    /// (StoryGraph has "Authors", not "Author"; LibraryThing has "Primary Author").
    public static func detect(header: [String]) -> ExportFormat? {
        ExportVariant.detect(header: header)?.format
    }

    /// True when `header` has every required column of one of the format's variants.
    public func matches(header: [String]) -> Bool {
        ExportVariant.detect(header: header, format: self) != nil
    }

    /// A header name as the exports mean it: LibraryThing's 2014 CSV writes `'TITLE'`, quotes and all.
    static func columnName(_ name: String) -> String {
        let trimmed = name.trimmingSpaces
        guard trimmed.count >= 2, trimmed.hasPrefix("'"), trimmed.hasSuffix("'") else { return trimmed }
        return String(trimmed.dropFirst().dropLast()).trimmingSpaces
    }
}

/// Why a CSV table is not an export of a known format.
public enum ExportFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No known format's columns: `columns` is the start of the header that was read.
    case unknownColumns(columns: [String])
    /// The caller named a format whose columns the header lacks (`missing`).
    case missingColumns(format: ExportFormat, missing: [String])

    public var description: String {
        switch self {
        case let .unknownColumns(columns):
            let shown = columns.prefix(6).map { "\"\($0)\"" }.joined(separator: ", ")
            return "not a Goodreads, LibraryThing or StoryGraph export: unknown columns \(shown)\(columns.count > 6 ? ", …" : "")"
        case let .missingColumns(format, missing):
            return "not a \(format.rawValue) export: missing columns \(missing.map { "\"\($0)\"" }.joined(separator: ", "))"
        }
    }
}
