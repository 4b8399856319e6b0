import Foundation
import Logging
import RepartoConfiguration
import Synchronization
import Testing

@Suite("a Secret never shows its value", .timeLimit(.minutes(1)))
struct SecretRedactionTests {
    private let secret = Secret("sk-live-DO-NOT-PRINT-9f8e7d")

    @Test func descriptionsAndReflectionAreRedacted() {
        #expect("\(secret)" == "<redacted>")
        #expect(String(describing: secret) == "<redacted>")
        #expect(String(reflecting: secret) == "<redacted>")
        #expect(String(describing: Optional(secret)) == "Optional(<redacted>)")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains(secret.value), "dump: \(dumped)")
        #expect(Mirror(reflecting: secret).children.isEmpty)
    }

    @Test func encodingIsRedacted() throws {
        struct Settings: Encodable { var key: Secret }
        let json = String(decoding: try JSONEncoder().encode(Settings(key: secret)), as: UTF8.self)
        #expect(json == #"{"key":"<redacted>"}"#)
    }

    @Test func logLinesAndMetadataAreRedacted() {
        let lines = CapturedLines()
        let logger = Logger(label: "test") { _ in CapturingHandler(lines: lines) }
        logger.info("using key \(secret)", metadata: ["key": "\(secret)", "also": .stringConvertible(secret)])
        let captured = lines.all
        #expect(captured.count == 1)
        #expect(captured.allSatisfy { !$0.contains(secret.value) }, "\(captured)")
        #expect(captured.first?.contains("<redacted>") == true)
    }

    @Test func errorsNameVariablesNotValues() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(secret.value, to: "secret")
        do {
            _ = try ConfigurationValues(environment: ["OPENAI_API_KEY": secret.value, "OPENAI_API_KEY_FILE": path]).secret("OPENAI_API_KEY")
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains(secret.value))
            #expect(!String(reflecting: error).contains(secret.value))
        }
    }
}

/// Log lines as a handler formatted them.
private final class CapturedLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

/// Formats message and metadata into one line, the way a text or JSON handler would.
private struct CapturingHandler: LogHandler {
    let lines: CapturedLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        lines.append("\(event.message) \(all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
    }
}
