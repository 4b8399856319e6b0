import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RepartoTestSupport
import Synchronization
import Testing

/// A `reparto` subprocess whose stdout and stderr are captured line by line, for the operations
/// tests (metrics port discovery from the log, secrets never printed).
final class CapturedProcess: Sendable {
    /// The lines read so far.
    private final class Captured: Sendable {
        let lines = Mutex<(stdout: [String], stderr: [String])>(([], []))
        func append(_ line: String, stdout: Bool) {
            lines.withLock { stdout ? $0.stdout.append(line) : $0.stderr.append(line) }
        }
    }

    let process: Process
    private let captured = Captured()
    private let readers: [Task<Void, Never>]
    /// Kills the process at `timeout` (default: ``RepartoProcess/startTimeout``) if the test did
    /// not stop it, and names it.
    let deadline: ProcessDeadline

    init(_ arguments: [String], environment: [String: String], timeout: Double = RepartoProcess.startTimeout) throws {
        let process = Process()
        process.executableURL = RepartoProcess.executable
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = RepartoProcess.neutralDirectory
        let out = Pipe(), err = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        self.process = process
        try process.run()
        deadline = ProcessDeadline(process, command: ProcessDeadline.describe("reparto", arguments), seconds: timeout)
        let captured = self.captured
        // Blocking reads, on dispatch threads (never the cooperative pool).
        readers = [(out.fileHandleForReading, true), (err.fileHandleForReading, false)].map { handle, isStdout in
            Task {
                _ = try? await onOwnThread {
                    var pending = Data()
                    while true {
                        let chunk = handle.availableData
                        if chunk.isEmpty { break }
                        pending.append(chunk)
                        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                            captured.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self), stdout: isStdout)
                            pending.removeSubrange(pending.startIndex...newline)
                        }
                    }
                    if !pending.isEmpty { captured.append(String(decoding: pending, as: UTF8.self), stdout: isStdout) }
                }
            }
        }
    }

    var stdoutLines: [String] { captured.lines.withLock { $0.stdout } }
    var stderrLines: [String] { captured.lines.withLock { $0.stderr } }

    /// Waits for a captured line that `match` turns into a value.
    func waitForLine<T: Sendable>(timeout: Double = 60, _ what: String, _ match: @Sendable (String) -> T?) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let lines = captured.lines.withLock { $0.stdout + $0.stderr }
            if let value = lines.lazy.compactMap(match).first { return value }
            if !process.isRunning {
                if self.deadline.fired { throw TestTimeout(what: "\(what): `\(self.deadline.command)` was killed at its deadline") }
                throw ProcessEnded(what: what, output: lines.joined(separator: "\n"))
            }
            if ContinuousClock.now > deadline { throw TestTimeout(what: what) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// SIGTERM, then the exit status once both streams are drained. A process still running
    /// `timeout` seconds later is killed (SIGKILL) and the test gets an issue naming it.
    func terminate(timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) async -> Int32 {
        if process.isRunning { process.terminate() }
        await RepartoProcess.waitForExit(process, timeout: timeout, sourceLocation: sourceLocation)
        deadline.finish()
        for reader in readers { await reader.value }
        return process.terminationStatus
    }

    struct ProcessEnded: Error, CustomStringConvertible {
        let what: String
        let output: String
        var description: String { "the process ended before \(what); output:\n\(output)" }
    }
}

/// The JSON object of a log line, or nil.
func jsonObject(_ line: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}

/// The port in the `message` log line (JSON format), e.g. "metrics server listening".
func listeningPort(_ line: String, message: String) -> Int? {
    guard let object = jsonObject(line), object["message"] as? String == message,
          let metadata = object["metadata"] as? [String: Any], let port = metadata["port"] as? String else { return nil }
    return Int(port)
}

/// A plain HTTP GET: status and body.
func httpGet(_ url: String) async throws -> (status: Int, body: String) {
    let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

/// Polls `url` until `accept` holds for the response, or throws after `timeout` seconds.
@discardableResult
func waitForHTTP(_ url: String, timeout: Double = 60, _ what: String,
                 _ accept: @Sendable (Int, String) -> Bool) async throws -> String {
    let deadline = ContinuousClock.now + .seconds(timeout)
    var last = "(no response)"
    while true {
        if let (status, body) = try? await httpGet(url) {
            if accept(status, body) { return body }
            last = "\(status): \(body.prefix(2000))"
        }
        if ContinuousClock.now > deadline { throw TestTimeout(what: "\(what); last response \(last)") }
        try await Task.sleep(for: .milliseconds(100))
    }
}

/// The value of one series (`name{labels}`, exactly as exposed) in Prometheus text, or nil.
func metricValue(_ series: String, in exposition: String) -> Double? {
    for line in exposition.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}

/// Splits the password out of a URL: the URL without it, and the password.
func withoutPassword(_ url: String) -> (url: String, password: String?) {
    guard var components = URLComponents(string: url) else { return (url, nil) }
    let password = components.password
    components.password = nil
    return (components.string ?? url, password)
}

/// Writes `secret` to a new temporary file (with a trailing newline, like `echo`), returns its path.
func secretFile(_ secret: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-secret-\(UUID().uuidString)").path
    try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: path))
    return path
}
