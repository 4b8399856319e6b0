import Foundation
import Logging
import Operations
import Synchronization
import Testing

@Suite("JSON log format", .timeLimit(.minutes(2)))
struct JSONLogHandlerTests {
    /// Collects the lines a handler writes.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    private func object(_ line: String) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(value as? [String: Any], "not a JSON object: \(line)")
    }

    @Test func oneObjectPerLineWithTheRequiredFields() throws {
        let lines = Lines()
        var logger = Logger(label: "reparto.worker") { label in
            JSONLogHandler(label: label, sink: { lines.append($0) })
        }
        logger[metadataKey: "worker_id"] = "w1"
        logger.info("job attempt failed", metadata: ["job_id": "1234", "attempt": "2"])
        logger.debug("below the level: not written")

        #expect(lines.all.count == 1)
        let line = try #require(lines.all.first)
        #expect(!line.contains("\n"))
        let object = try object(line)
        #expect(object["level"] as? String == "info")
        #expect(object["label"] as? String == "reparto.worker")
        #expect(object["message"] as? String == "job attempt failed")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["job_id"] as? String == "1234")
        #expect(metadata["attempt"] as? String == "2")
        #expect(metadata["worker_id"] as? String == "w1")
        let timestamp = try #require(object["timestamp"] as? String)
        #expect((try? Date(timestamp, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))) != nil,
                "timestamp \(timestamp) is not ISO 8601")
    }

    @Test func escapesAndNestedMetadata() throws {
        let line = JSONLogHandler.line(
            timestamp: Date(timeIntervalSince1970: 0), level: .error, label: "l",
            message: "quote \" backslash \\ newline \n tab \t bell \u{07} é ✓",
            metadata: ["nested": ["a": "1", "list": ["x", .stringConvertible(42)]], "plain": "v"],
            error: "boom")
        #expect(!line.contains("\n"))
        let object = try object(line)
        #expect(object["message"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{07} é ✓")
        #expect(object["error"] as? String == "boom")
        #expect(object["timestamp"] as? String == "1970-01-01T00:00:00.000Z")
        let metadata = try #require(object["metadata"] as? [String: Any])
        let nested = try #require(metadata["nested"] as? [String: Any])
        #expect(nested["a"] as? String == "1")
        #expect(nested["list"] as? [String] == ["x", "42"])
        #expect(metadata["plain"] as? String == "v")
    }

    @Test func callMetadataWinsOverHandlerMetadata() throws {
        let lines = Lines()
        var logger = Logger(label: "x") { label in JSONLogHandler(label: label, sink: { lines.append($0) }) }
        logger[metadataKey: "key"] = "handler"
        logger.warning("m", metadata: ["key": "call"])
        let line = try #require(lines.all.first)
        let metadata = try #require(try object(line)["metadata"] as? [String: Any])
        #expect(metadata["key"] as? String == "call")
    }

    @Test func formatsByName() {
        #expect(LogFormat(rawValue: "json") == .json)
        #expect(LogFormat(rawValue: "text") == .text)
        #expect(LogFormat(rawValue: "yaml") == nil)
        #expect(LogFormat.json.makeHandler(label: "a", level: .notice).logLevel == .notice)
    }
}
