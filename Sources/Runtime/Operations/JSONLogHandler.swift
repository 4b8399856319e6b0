import Foundation
import Logging
import Synchronization
import TextEscaping

/// A swift-log handler writing one JSON object per line:
/// `{"timestamp":"…","level":"info","label":"reparto.worker","message":"…","metadata":{…}}`.
///
/// Metadata merges the handler's, the metadata provider's and the call's (the call wins), with
/// nested dictionaries and arrays kept as JSON objects and arrays; keys are sorted so lines are
/// stable. An attached error goes to `"error"`. Lines go to standard error unless another sink is
/// given (tests capture them).
public struct JSONLogHandler: LogHandler {
    /// Where a finished line (without its newline) goes.
    public typealias Sink = @Sendable (String) -> Void

    /// Handler-level metadata, included in every line.
    public var metadata: Logger.Metadata = [:]
    /// Contextual metadata, asked for each line.
    public var metadataProvider: Logger.MetadataProvider?
    /// The lowest level written.
    public var logLevel: Logger.Level = .info
    private let label: String
    private let sink: Sink

    /// A handler for `label` writing to `sink` (standard error by default).
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil,
                sink: @escaping Sink = JSONLogHandler.standardError) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.sink = sink
    }

    /// Writes a line and its newline to file descriptor 2, under a process-wide lock so lines from
    /// concurrent threads never interleave (like swift-log's stream handler, a blocking write).
    public static let standardError: Sink = { line in
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        writeLock.withLock { _ in
            bytes.withUnsafeBufferPointer { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        return
                    }
                }
            }
        }
    }

    private static let writeLock = Mutex(())

    /// Handler-level metadata by key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Formats the event as one JSON line and hands it to the sink.
    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        sink(Self.line(timestamp: Date(), level: event.level, label: label, message: event.message.description,
                       metadata: merged, error: event.error.map { "\($0)" }))
    }

    /// The JSON line for one event (exposed for tests and other sinks).
    public static func line(timestamp: Date, level: Logger.Level, label: String, message: String,
                            metadata: Logger.Metadata, error: String? = nil) -> String {
        var out = "{\"timestamp\":"
        JSONString.append(timestamp.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)), to: &out)
        out += ",\"level\":"
        JSONString.append(level.rawValue, to: &out)
        out += ",\"label\":"
        JSONString.append(label, to: &out)
        out += ",\"message\":"
        JSONString.append(message, to: &out)
        out += ",\"metadata\":"
        appendValue(.dictionary(metadata), to: &out)
        if let error {
            out += ",\"error\":"
            JSONString.append(error, to: &out)
        }
        out += "}"
        return out
    }

    private static func appendValue(_ value: Logger.Metadata.Value, to out: inout String) {
        switch value {
        case .string(let text):
            JSONString.append(text, to: &out)
        case .stringConvertible(let convertible):
            JSONString.append(convertible.description, to: &out)
        case .dictionary(let dictionary):
            out += "{"
            for (index, key) in dictionary.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                JSONString.append(key, to: &out)
                out += ":"
                appendValue(dictionary[key]!, to: &out)
            }
            out += "}"
        case .array(let values):
            out += "["
            for (index, element) in values.enumerated() {
                if index > 0 { out += "," }
                appendValue(element, to: &out)
            }
            out += "]"
        }
    }

}
