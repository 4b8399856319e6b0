/// An RFC 4180 CSV reader for library exports: pure, no I/O.
///
/// - Fields are separated by commas and records by CRLF, LF or a lone CR. A header row with more
///   tabs than commas (outside quotes) makes the file tab-separated (LibraryThing's TSV): fields
///   split at tabs, records at line ends, and quotes are text (``CSVTable/Delimiter/tab``).
/// - A field that starts with `"` is quoted: it may hold commas and line breaks, and `""` in it is
///   one quote. After its closing quote only a comma or a line end may follow
///   (``CSVError/textAfterClosingQuote(line:)``); a quote never closed is
///   ``CSVError/unterminatedQuote(line:)``.
/// - A quote inside an *unquoted* field is kept as text. RFC 4180 forbids it, but Goodreads writes
///   ISBNs as `="0451526538"` and this keeps them readable (``ISBN/clean(_:)`` takes the `=` and
///   quotes off).
/// - A UTF-8 byte-order mark is skipped. Input that holds a NUL byte or is mostly control bytes is
///   refused before any parsing, so a binary file gets one clear error. Bytes that are not UTF-8 in
///   an otherwise UTF-8 file are read as MARC-8 diacritics or Latin-1 (``TextRepair``) and
///   reported in ``CSVTable/repairs``; a file where more than one byte in twenty is not UTF-8 is
///   refused (``CSVError/invalidUTF8(offset:)``).
public enum CSVReader {
    /// The largest file read by default: 16 MiB, about 50,000 books of a Goodreads export.
    public static let defaultMaxBytes = 16 << 20

    /// Reads `bytes` as a CSV table with a header row.
    public static func read(_ bytes: [UInt8], maxBytes: Int = defaultMaxBytes) throws(CSVError) -> CSVTable {
        let (text, repairs) = try decode(bytes, maxBytes: maxBytes)
        return try table(text, repairs: repairs)
    }

    /// The table of decoded text.
    static func table(_ text: String, repairs: [TextRepair]) throws(CSVError) -> CSVTable {
        let delimiter = delimiter(of: text)
        var rows = try parse(text, delimiter: delimiter)
        guard !rows.isEmpty else { throw .empty }
        let first = rows.removeFirst()
        let header = first.fields.map { $0.trimmingSpaces }
        guard header.contains(where: { !$0.isEmpty }) else { throw .noHeader }
        var seen = Set<String>()
        for name in header where !name.isEmpty {
            guard seen.insert(name.lowercased()).inserted else { throw .duplicateColumn(name: name) }
        }
        return CSVTable(header: header, records: rows, delimiter: delimiter, repairs: repairs)
    }

    /// Checks size, encoding and binary content, and returns the text without a byte-order mark
    /// and the lines whose bytes were not UTF-8.
    static func decode(_ bytes: [UInt8], maxBytes: Int) throws(CSVError) -> (text: String, repairs: [TextRepair]) {
        guard bytes.count <= maxBytes else { throw .tooLarge(size: bytes.count, limit: maxBytes) }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if let nul = body.firstIndex(of: 0) { throw .binary(offset: nul) }
        // Control bytes other than tab, LF and CR: a few are tolerated, many mean binary.
        let sample = body.prefix(8192)
        let controls = sample.filter { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }.count
        if controls > 8 && controls * 20 > sample.count {
            let first = sample.firstIndex { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D } ?? body.startIndex
            throw .binary(offset: first)
        }
        let (text, repairs) = try ExportTextDecoder.decode(body)
        guard text.contains(where: { !$0.isWhitespace }) else { throw .empty }
        return (text, repairs)
    }

    /// Tab when the first line has more tabs than commas outside quotes, else comma.
    static func delimiter(of text: String) -> CSVTable.Delimiter {
        var commas = 0, tabs = 0
        var inQuotes = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": inQuotes.toggle()
            case "\n", "\r": return tabs > commas ? .tab : .comma
            case "," where !inQuotes: commas += 1
            case "\t" where !inQuotes: tabs += 1
            default: break
            }
        }
        return tabs > commas ? .tab : .comma
    }

    /// Splits `text` into records; blank lines (outside quotes) are skipped.
    static func parse(_ text: String, delimiter: CSVTable.Delimiter = .comma) throws(CSVError) -> [CSVTable.Record] {
        if delimiter == .tab { return parseTabSeparated(text) }
        var records: [CSVTable.Record] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var recordLine = 1
        var inQuotes = false
        var quoteLine = 1
        var afterClosingQuote = false
        var fieldStarted = false
        let scalars = Array(text.unicodeScalars)
        var index = 0

        func endField() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
            fieldStarted = false
            afterClosingQuote = false
        }
        func endRecord() {
            endField()
            let blank = fields.count == 1 && fields[0].isEmpty
            if !blank { records.append(CSVTable.Record(line: recordLine, fields: fields)) }
            fields = []
        }

        while index < scalars.count {
            let c = scalars[index]
            if inQuotes {
                if c == "\"" {
                    if index + 1 < scalars.count && scalars[index + 1] == "\"" {
                        field.append("\"")
                        index += 2
                        continue
                    }
                    inQuotes = false
                    afterClosingQuote = true
                } else {
                    if c == "\n" || (c == "\r" && !(index + 1 < scalars.count && scalars[index + 1] == "\n")) {
                        line += 1
                    }
                    field.append(c)
                }
                index += 1
                continue
            }
            switch c {
            case ",":
                endField()
            case "\r", "\n":
                if c == "\r" && index + 1 < scalars.count && scalars[index + 1] == "\n" { index += 1 }
                endRecord()
                line += 1
                recordLine = line
            case "\"" where !fieldStarted:
                inQuotes = true
                fieldStarted = true
                quoteLine = line
            default:
                if afterClosingQuote {
                    if c == " " || c == "\t" { break } // spaces after a closing quote are dropped
                    throw .textAfterClosingQuote(line: line)
                }
                field.append(c)
                fieldStarted = true
            }
            index += 1
        }
        if inQuotes { throw .unterminatedQuote(line: quoteLine) }
        if fieldStarted || !fields.isEmpty || afterClosingQuote { endRecord() }
        return records
    }
}

extension CSVReader {
    /// Tab-separated records: fields split at tabs, records at CRLF, LF or a lone CR; quotes are
    /// text; blank lines are skipped.
    static func parseTabSeparated(_ text: String) -> [CSVTable.Record] {
        var records: [CSVTable.Record] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func endRecord() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
            if !(fields.count == 1 && fields[0].isEmpty) { records.append(CSVTable.Record(line: line, fields: fields)) }
            fields = []
        }
        while index < scalars.count {
            let c = scalars[index]
            switch c {
            case "\t":
                fields.append(String(field))
                field = String.UnicodeScalarView()
            case "\r", "\n":
                if c == "\r" && index + 1 < scalars.count && scalars[index + 1] == "\n" { index += 1 }
                endRecord()
                line += 1
            default:
                field.append(c)
            }
            index += 1
        }
        if !field.isEmpty || !fields.isEmpty { endRecord() }
        return records
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }

    /// The string trimmed, with every run of whitespace inside made one space ("Matthew    Ward").
    var collapsingSpaces: String {
        split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
