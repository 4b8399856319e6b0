import Dispatch
import Foundation

/// Runs a subprocess without blocking Swift's cooperative thread pool.
///
/// Standard input is written, and standard output and error are drained, on Dispatch threads;
/// the exit is observed through `terminationHandler`; the caller's task awaits one continuation
/// that is resumed when all four are done. Arguments are passed as an array (no shell), and
/// callers keep untrusted text out of them (it goes through standard input).
enum ProcessRunner {
    struct Output: Sendable {
        var status: Int32
        var stdout: Data
        var stderr: Data
    }

    /// Collects the results of the four concurrent parts of one run.
    ///
    /// `@unchecked Sendable`: every field is written by exactly one Dispatch block before
    /// `group.leave()` and read only in `group.notify`, which the group orders after all leaves.
    private final class Collector: @unchecked Sendable {
        var stdout = Data()
        var stderr = Data()
        var status: Int32 = -1
    }

    /// Writing to a pipe whose reader exited must fail with EPIPE, not kill this process:
    /// ignore SIGPIPE once (process-wide; SwiftNIO does the same for its sockets).
    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    static func run(executable: URL, arguments: [String], stdin: Data) async throws -> Output {
        _ = ignoreSIGPIPE
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let collector = Collector()
        let group = DispatchGroup()

        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Output, any Error>) in
            group.enter()  // termination
            process.terminationHandler = { p in
                collector.status = p.terminationStatus
                group.leave()
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            let queue = DispatchQueue.global(qos: .userInitiated)
            group.enter()
            queue.async {
                let handle = input.fileHandleForWriting
                // A closed pipe (engine exited early) surfaces as an error we ignore: the exit status tells.
                try? handle.write(contentsOf: stdin)
                try? handle.close()
                group.leave()
            }
            group.enter()
            queue.async {
                collector.stdout = output.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
            group.enter()
            queue.async {
                collector.stderr = errors.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
            group.notify(queue: queue) {
                continuation.resume(returning: Output(status: collector.status, stdout: collector.stdout, stderr: collector.stderr))
            }
        }
    }
}
