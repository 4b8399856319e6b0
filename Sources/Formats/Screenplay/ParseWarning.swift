/// Something the parser read in a way the writer may not have meant, kept with the document so
/// nothing is changed or dropped silently (the `warnings` of the element JSON and of a table
/// read's report).
///
/// Repeats of the same warning are counted, not listed: ``line`` is the first occurrence.
public struct ParseWarning: Codable, Sendable, Hashable, CustomStringConvertible {
    /// What kind of surprise the parser met.
    public enum Code: String, Codable, Sendable, Hashable, CaseIterable {
        /// An FDX paragraph type the parser does not know; its text was read as action.
        case unknownParagraphType
        /// An FDX paragraph nested where the format does not put one; read as an element of its own.
        case unexpectedNesting
        /// FDX text outside any paragraph; read as action.
        case textOutsideParagraph
        /// The file is not UTF-8; it was read as Windows-1252 (a superset of Latin-1).
        case legacyEncoding
    }

    /// What kind of surprise the parser met.
    public var code: Code
    /// One line for a person: what was found and how it was read.
    public var message: String
    /// The 1-based source line of the first occurrence, when known.
    public var line: Int?
    /// How many times the same warning occurred.
    public var count: Int

    /// A warning; see the properties.
    public init(code: Code, message: String, line: Int? = nil, count: Int = 1) {
        self.code = code
        self.message = message
        self.line = line
        self.count = count
    }

    /// `line N: message (×count)`.
    public var description: String {
        var text = line.map { "line \($0): " } ?? ""
        text += message
        if count > 1 { text += " (\(count) times)" }
        return text
    }
}

/// Collects warnings, merging repeats of the same code and message.
struct ParseWarnings {
    private(set) var all: [ParseWarning] = []
    private var index: [String: Int] = [:]

    mutating func add(_ code: ParseWarning.Code, _ message: String, line: Int?) {
        let key = code.rawValue + "\u{0}" + message
        if let i = index[key] {
            all[i].count += 1
        } else {
            index[key] = all.count
            all.append(ParseWarning(code: code, message: message, line: line))
        }
    }
}
