import Foundation

/// An API key read from the environment or a file. Never printed: `description` is redacted,
/// and the value is only used to build request headers.
public struct APIKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret itself; only for building request headers.
    public let value: String

    public init(_ value: String) { self.value = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }

    /// Reads `NAME` from `environment`, else the file named by `NAME_FILE` (trimmed).
    /// Returns nil when neither is set or the value is empty or the file is unreadable.
    public static func resolve(_ name: String, environment: [String: String]) -> APIKey? {
        if let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
            return APIKey(value)
        }
        if let path = environment[name + "_FILE"], !path.isEmpty,
           let contents = try? String(contentsOfFile: path, encoding: .utf8) {
            let value = contents.trimmingCharacters(in: .whitespacesAndNewlines)
            if !value.isEmpty { return APIKey(value) }
        }
        return nil
    }
}
