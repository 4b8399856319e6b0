import Logging

/// How log lines look: `text` (swift-log's stream format) or `json` (one object per line).
public enum LogFormat: String, Sendable, CaseIterable {
    /// `2024-05-01T12:00:00+0000 info reparto.worker : job_id=… message`
    case text
    /// `{"timestamp":…,"level":…,"label":…,"message":…,"metadata":{…}}`, see ``JSONLogHandler``.
    case json

    /// The format a configuration value names (nil: text).
    /// - Throws: ``LogFormatError`` for another name.
    public init(setting name: String?) throws(LogFormatError) {
        guard let format = LogFormat(rawValue: name ?? LogFormat.text.rawValue) else {
            throw LogFormatError(description: "unknown log format '\(name ?? "")' (use text or json)")
        }
        self = format
    }

    /// A handler in this format on standard error.
    public func makeHandler(label: String, level: Logger.Level) -> any LogHandler {
        switch self {
        case .text:
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        case .json:
            var handler = JSONLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

/// A log format name that is neither `text` nor `json`, in one line.
public struct LogFormatError: Error, Sendable, CustomStringConvertible {
    public let description: String
}
