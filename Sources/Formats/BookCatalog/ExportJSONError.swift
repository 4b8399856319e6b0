/// Why a JSON file is not a LibraryThing export (nothing is created).
public enum ExportJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not valid JSON.
    case malformed
    /// Nested deeper than `limit` levels: no export is, and reading it could exhaust the stack.
    case tooDeep(limit: Int)
    /// Valid JSON, but not LibraryThing's: not an object of books (objects with a `title`).
    case notLibraryThing

    public var description: String {
        switch self {
        case .malformed: "not a LibraryThing JSON export: the JSON is malformed"
        case let .tooDeep(limit): "not a LibraryThing JSON export: nested deeper than \(limit) levels"
        case .notLibraryThing: "not a LibraryThing JSON export: no books (objects with a \"title\") at the top level"
        }
    }
}
