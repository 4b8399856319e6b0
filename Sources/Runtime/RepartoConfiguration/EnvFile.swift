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
    /// `directory` if it exists, else none.
    ///
    /// The default file is found, not chosen: a checkout or a shared directory could carry one. It
    /// is read only when the current user owns it and neither its group nor others may write it
    /// (as `scripts/services` writes it, umask 077); otherwise loading fails, naming the file and why.
    /// - Parameter directory: where the default file is looked for (nil: the working directory).
    /// - Throws: ``ConfigurationError/unreadableEnvFile(path:reason:)`` when `explicitPath` (or an
    ///   existing default file) cannot be read, ``ConfigurationError/unsafeEnvFile(path:reason:)``
    ///   when the default file is someone else's or writable by others.
    public static func locate(explicitPath: String?, directory: String? = nil) throws(ConfigurationError) -> EnvFile? {
        if let explicitPath { return try EnvFile(contentsOf: explicitPath) }
        let path = directory.map { URL(fileURLWithPath: $0).appendingPathComponent(defaultPath).path } ?? defaultPath
        return try readIfSafe(path, owner: geteuid())
    }

    /// The file at `path` when `owner` owns it and it is not group- or world-writable; nil when it
    /// does not exist. Checked on the open descriptor, so the file read is the file checked.
    static func readIfSafe(_ path: String, owner: uid_t) throws(ConfigurationError) -> EnvFile? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw .unreadableEnvFile(path: path, reason: String(cString: strerror(code)))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .unreadableEnvFile(path: path, reason: String(cString: strerror(errno)))
        }
        if let reason = unsafeReason(owner: status.st_uid, mode: status.st_mode, expectedOwner: owner) {
            throw .unsafeEnvFile(path: path, reason: reason)
        }
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw .unreadableEnvFile(path: path, reason: reason(error))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .unreadableEnvFile(path: path, reason: "not UTF-8 text")
        }
        return EnvFile(path: path, values: parse(text))
    }

    /// Why a file of this owner and mode must not be read, or nil when it may.
    static func unsafeReason(owner: uid_t, mode: mode_t, expectedOwner: uid_t) -> String? {
        if mode & S_IFMT != S_IFREG { return "it is not a regular file" }
        if owner != expectedOwner { return "it is owned by uid \(owner), not by the current user (uid \(expectedOwner))" }
        let writable = [(S_IWGRP, "its group"), (S_IWOTH, "other users")].filter { mode & $0.0 != 0 }.map(\.1)
        if !writable.isEmpty {
            let octal = String(mode & 0o777, radix: 8)
            return "\(writable.joined(separator: " and ")) may write it (mode \(octal)); chmod go-w it"
        }
        return nil
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
