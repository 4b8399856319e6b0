/// Bytes of one line of an export that were not UTF-8 and were read another way instead of the
/// file being refused (``CSVReader``). The rows they fall in are noted in ``BookExport/notes``.
public struct TextRepair: Sendable, Hashable, Codable {
    /// How bytes that are not UTF-8 were read.
    public enum Reading: String, Sendable, Hashable, Codable {
        /// MARC-8 (ANSEL) combining diacritics written before the letter they modify, composed onto
        /// it: LibraryThing's `Cort` 0xE2 `azar` is "Cortázar".
        case marc8 = "marc-8"
        /// Latin-1, one byte one character (0x80–0x9F as windows-1252, as browsers read Latin-1).
        case latin1 = "latin-1"
    }

    /// The 1-based line of the file the bytes are on.
    public var line: Int
    public var reading: Reading
    /// How many bytes of the line were read this way.
    public var bytes: Int

    public init(line: Int, reading: Reading, bytes: Int) {
        (self.line, self.reading, self.bytes) = (line, reading, bytes)
    }
}
