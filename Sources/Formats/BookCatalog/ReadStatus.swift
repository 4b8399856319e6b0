/// Where a reader is with a book, as the exports spell it (Goodreads' exclusive shelf,
/// StoryGraph's read status, LibraryThing's collections).
public enum ReadStatus: String, Sendable, Hashable, Codable {
    case read
    case currentlyReading = "currently-reading"
    case toRead = "to-read"
    case didNotFinish = "did-not-finish"
    /// The export names no status, or one of its own that is not among the above.
    case unknown

    /// Reads a status as Goodreads and StoryGraph write it ("read", "to-read", "currently-reading",
    /// "did-not-finish", also spelled with spaces or underscores).
    public init(exportValue: String) {
        let key = exportValue.trimmingSpaces.lowercased()
            .replacingOccurrences(of: " ", with: "-").replacingOccurrences(of: "_", with: "-")
        switch key {
        case "read", "finished": self = .read
        case "currently-reading", "reading": self = .currentlyReading
        case "to-read", "want-to-read": self = .toRead
        case "did-not-finish", "dnf", "abandoned": self = .didNotFinish
        default: self = .unknown
        }
    }
}
