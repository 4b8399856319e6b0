/// Why a document could not be read. Every case has a one-line ``description``.
public enum ScreenplayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input has no bytes, or only whitespace.
    case empty
    /// The input is larger than the configured limit (``ParseOptions/maxBytes``).
    case tooLarge(size: Int, limit: Int)
    /// The input looks binary: it contains a NUL byte or too many control characters.
    case binary(offset: Int)
    /// The input is not valid UTF-8; `offset` is the first bad byte.
    case invalidUTF8(offset: Int)
    /// The input starts with a UTF-16 byte-order mark but is not valid UTF-16.
    case invalidUTF16
    /// The input uses an encoding that is not supported (UTF-32).
    case unsupportedEncoding(String)
    /// The XML is not well formed (truncated, mismatched tags, ...).
    case malformedXML(line: Int, column: Int, message: String)
    /// The XML declares a DTD (`<!DOCTYPE`) or entities; rejected to prevent entity
    /// expansion and external entity loading.
    case xmlDoctypeNotAllowed
    /// The XML is well formed but is not a Final Draft document (root is not `<FinalDraft>`).
    case notFinalDraft(root: String)
    /// The XML nests deeper than the parser accepts.
    case xmlTooDeep(limit: Int)

    public var description: String {
        switch self {
        case .empty:
            return "empty input: the file has no content"
        case let .tooLarge(size, limit):
            return "input too large: \(size) bytes exceeds the limit of \(limit) bytes"
        case let .binary(offset):
            return "input looks binary (NUL or control bytes near byte \(offset)); expected a text screenplay"
        case let .invalidUTF8(offset):
            return "invalid UTF-8 at byte \(offset)"
        case .invalidUTF16:
            return "invalid UTF-16: the file has a UTF-16 byte-order mark but malformed content"
        case let .unsupportedEncoding(name):
            return "unsupported text encoding: \(name)"
        case let .malformedXML(line, column, message):
            return "malformed XML at line \(line), column \(column): \(message)"
        case .xmlDoctypeNotAllowed:
            return "XML with a DOCTYPE/DTD or entity declarations is not accepted"
        case let .notFinalDraft(root):
            return "not a Final Draft document: root element is <\(root)>, expected <FinalDraft>"
        case let .xmlTooDeep(limit):
            return "XML nesting deeper than \(limit) levels"
        }
    }
}
