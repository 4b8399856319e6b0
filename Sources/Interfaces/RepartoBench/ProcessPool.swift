import ProductionKit
import Dispatch
import Foundation
import Synchronization

/// Runs commands `processes` at a time on plain threads, as a shell loop per core would.
enum ProcessPool {
    /// Runs `commands`, `processes` at a time, each to a zero exit; returns the wall time in seconds.
    /// Their output is this process's, or, given a `log` (an existing file), discarded with their
    /// standard error appended to it.
    static func run(_ commands: [(String, [String])], processes: Int, log: URL? = nil) async throws -> Double {
        let started = ContinuousClock.now
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // Plain threads, as a shell loop per core would run them; nothing here touches the pool.
            DispatchQueue.global().async {
                let next = NextIndex()
                let failure = FirstFailure()
                DispatchQueue.concurrentPerform(iterations: processes) { _ in
                    while let index = next.take(below: commands.count), failure.error == nil {
                        do {
                            let status: Int32
                            if let log {
                                let process = try ChildProcess.start(commands[index], log: log)
                                process.waitUntilExit()
                                status = process.terminationStatus
                            } else {
                                status = try ChildProcess.run(commands[index])
                            }
                            if status != 0 { failure.record(BenchError("\(commands[index].0) exited \(status)")) }
                        } catch { failure.record(error) }
                    }
                }
                if let error = failure.error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
        return (ContinuousClock.now - started) / .seconds(1)
    }
}

/// Hands out indexes to the pool's threads.
private final class NextIndex: Sendable {
    private let value = Mutex(0)
    func take(below limit: Int) -> Int? {
        value.withLock { value in
            guard value < limit else { return nil }
            defer { value += 1 }
            return value
        }
    }
}

/// The first error any of the pool's threads met.
private final class FirstFailure: Sendable {
    private let value = Mutex<(any Error)?>(nil)
    var error: (any Error)? { value.withLock { $0 } }
    func record(_ error: any Error) { value.withLock { if $0 == nil { $0 = error } } }
}
