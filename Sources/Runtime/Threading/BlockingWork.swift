import Dispatch

/// Runs blocking work (file I/O with fsync, flock, waiting for a child process) off Swift's
/// cooperative pool.
///
/// Each call gets a serial queue of its own, which libdispatch backs with an "overcommit" thread:
/// one is started whenever such work is waiting. The global concurrent queues are not used for
/// this: on Linux their pool holds about one thread per core, so a few blocked calls would hold
/// every other blocking call back (measured: a table read's generate jobs used one core of two).
public enum BlockingWork {
    /// Runs `work` on a thread outside the cooperative pool and returns its result.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue().async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// A new serial queue for one piece of blocking work.
    public static func queue(_ label: String = "reparto.blocking") -> DispatchQueue {
        DispatchQueue(label: label)
    }
}
