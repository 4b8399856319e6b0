import Dispatch
import Foundation

/// Runs a subprocess without blocking Swift's cooperative thread pool.
///
/// Standard input is written and standard output drained on one Dispatch thread (small input;
/// large input gets a writer thread of its own), standard error on another, so no pipe can fill
/// up and stall the child; the exit is observed through `terminationHandler`; the caller's task
/// awaits one continuation resumed when all parts are done. Every pipe end is closed explicitly,
/// so a long-running worker does not leak descriptors (relying on deallocation leaked two per run).
/// Arguments are passed as an array (no shell), and callers keep untrusted text out of them (it
/// goes through standard input).
enum ProcessRunner {
    struct Output: Sendable {
        var status: Int32
        var stdout: Data
        var stderr: Data
    }

    /// Collects the results of the concurrent parts of one run.
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
                p.terminationHandler = nil  // break Process → handler references so the Process is freed
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
            // Input that fits in the pipe buffer (64 KiB on Linux) is written before stdout is
            // drained, on the same thread: the write cannot block. Larger input gets its own thread
            // so the child can never stall on a full stdout while we stall on a full stdin.
            // If the engine exits early, the write fails with EPIPE (ignored: the exit status tells).
            let inlineInput = stdin.count <= 32 * 1024
            @Sendable func writeInput() {
                let writer = input.fileHandleForWriting
                try? writer.write(contentsOf: stdin)
                try? writer.close()
            }
            if !inlineInput {
                group.enter()
                queue.async { writeInput(); group.leave() }
            }
            group.enter()
            queue.async {
                if inlineInput { writeInput() }
                let reader = output.fileHandleForReading
                collector.stdout = reader.readDataToEndOfFile()
                try? reader.close()  // explicit: relying on deallocation leaked two descriptors per run
                group.leave()
            }
            group.enter()
            queue.async {
                let reader = errors.fileHandleForReading
                collector.stderr = reader.readDataToEndOfFile()
                try? reader.close()
                group.leave()
            }
            group.notify(queue: queue) {
                continuation.resume(returning: Output(status: collector.status, stdout: collector.stdout, stderr: collector.stderr))
            }
        }
    }
}
