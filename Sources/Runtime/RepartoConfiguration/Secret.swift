/// A secret value (a password or an API key) that never shows itself.
///
/// `description`, `debugDescription`, reflection (`dump`, the debugger's child view) and `Encodable`
/// all give `<redacted>`, so a secret interpolated into a log line, an error or a JSON document does
/// not leak. Only ``value`` holds it: read it where the secret is handed over (a request header, a
/// C client's login), nowhere else.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable, Encodable {
    /// The secret itself; only for handing it to the component that authenticates with it.
    public let value: String

    /// Wraps `value`.
    public init(_ value: String) { self.value = value }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `<redacted>`.
    public var debugDescription: String { "<redacted>" }
    /// No children: `dump` and debuggers see `<redacted>` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// Encodes `"<redacted>"`, never the value (there is deliberately no `Decodable`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
