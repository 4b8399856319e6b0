/// The library exports Reparto reads, told apart by their header rows.
public enum ExportFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case goodreads
    case libraryThing = "librarything"
    case storyGraph = "storygraph"

    /// The columns a header must have to be read as this format (compared case-insensitively).
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
        allCases.first { $0.matches(header: header) }
    }

    /// True when `header` has every required column.
    public func matches(header: [String]) -> Bool {
        let names = Set(header.map { $0.lowercased() })
        return requiredColumns.allSatisfy { names.contains($0.lowercased()) }
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
