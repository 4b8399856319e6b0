/// A CSV file read whole: its header and its records, each with the line it starts on.
public struct CSVTable: Sendable, Hashable {
    /// One record (a row after the header): its fields and the 1-based line of the file it starts on
    /// (a quoted field with line breaks makes a record span several lines).
    public struct Record: Sendable, Hashable {
        public var line: Int
        public var fields: [String]
        public init(line: Int, fields: [String]) {
            self.line = line
            self.fields = fields
        }
    }

    /// What separates the fields of a record.
    public enum Delimiter: String, Sendable, Hashable, Codable {
        /// RFC 4180: commas, with quoted fields.
        case comma
        /// Tab-separated (LibraryThing's TSV): tabs, and quotes are text.
        case tab
    }

    /// The column names of the first row, trimmed of surrounding whitespace.
    public var header: [String]
    /// The rows after the header; blank lines are skipped.
    public var records: [Record]
    /// The separator the header row showed.
    public var delimiter: Delimiter
    /// The lines whose bytes were not UTF-8 and were read another way (MARC-8 marks, Latin-1).
    public var repairs: [TextRepair]

    public init(header: [String], records: [Record], delimiter: Delimiter = .comma, repairs: [TextRepair] = []) {
        self.header = header
        self.records = records
        self.delimiter = delimiter
        self.repairs = repairs
    }

    /// The index of the column named `name` (compared case-insensitively), if the header has one.
    public func column(_ name: String) -> Int? {
        let wanted = name.lowercased()
        return header.firstIndex { $0.lowercased() == wanted }
    }
}
