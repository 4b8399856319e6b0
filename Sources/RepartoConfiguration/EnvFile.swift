import Foundation

/// A file of `KEY=VALUE` lines: `.reparto/env` (written by `scripts/services up`) or the file
/// `--env-file` names. The one parser of such files in Reparto.
///
/// Syntax, a subset of what a shell's `source` accepts: blank lines and lines starting with `#`
/// are skipped, as are lines without `=`; an optional `export ` prefix and whitespace around the
/// key are ignored; the value is everything after the first `=`, verbatim (a `\r` line ending
/// removed; no quote or escape processing).
public struct EnvFile: Sendable, Equatable {
    /// Where `reparto` looks when no `--env-file` is given: `.reparto/env` in the working directory.
    public static let defaultPath = ".reparto/env"

    /// The file's path as given.
    public let path: String
    /// Its variables; a key given twice keeps its last value.
    public let values: [String: String]

    /// A file's contents, already parsed.
    public init(path: String, values: [String: String]) {
        self.path = path
        self.values = values
    }

    /// Reads and parses the file at `path`.
    /// - Throws: ``ConfigurationError/unreadableEnvFile(path:reason:)``.
    public init(contentsOf path: String) throws(ConfigurationError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadableEnvFile(path: path, reason: Self.reason(error))
        }
        self.init(path: path, values: Self.parse(text))
    }

    /// The env file to use: `explicitPath` (which must be readable), else ``defaultPath`` below
    /// `directory` if it exists and is readable, else none.
    /// - Parameter directory: where the default file is looked for (nil: the working directory).
    /// - Throws: ``ConfigurationError/unreadableEnvFile(path:reason:)`` when `explicitPath` cannot be read.
    public static func locate(explicitPath: String?, directory: String? = nil) throws(ConfigurationError) -> EnvFile? {
        if let explicitPath { return try EnvFile(contentsOf: explicitPath) }
        let path = directory.map { URL(fileURLWithPath: $0).appendingPathComponent(defaultPath).path } ?? defaultPath
        return try? EnvFile(contentsOf: path)
    }

    /// The variables of `text`.
    public static func parse(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            var entry = trimmed
            if entry.hasPrefix("export ") { entry = entry.dropFirst("export ".count) }
            guard let eq = entry.firstIndex(of: "=") else { continue }
            let key = entry[..<eq].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { continue }
            values[key] = String(entry[entry.index(after: eq)...])
        }
        return values
    }

    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain {
            switch nsError.code {
            case NSFileReadNoSuchFileError: return "no such file"
            case NSFileReadNoPermissionError: return "permission denied"
            case NSFileReadInapplicableStringEncodingError: return "not UTF-8 text"
            default: break
            }
        }
        return nsError.localizedDescription
    }
}
