import Dispatch
import Foundation
import Synchronization

/// Work served in order by up to `count` threads of their own (never Swift's cooperative pool),
/// each with state that only it touches: a C library with global state (``EspeakLibrary``), or a
/// helper process and its pipes (``SpeechHelperPool``).
///
/// Threads start on demand and live as long as the process. Async callers await a continuation;
/// cancelling one skips its work if no thread has taken it yet, and otherwise sets the
/// ``CancellationFlag`` the server is given.
public final class DedicatedThreads<Work: Sendable, Output: Sendable>: Sendable {
    /// A thread's server: called on that thread only, for one piece of work after another.
    public typealias Server = (Work, CancellationFlag) -> Result<Output, any Error>

    private struct Job: Sendable {
        var work: Work
        var cancellation: CancellationFlag
        var continuation: CheckedContinuation<Output, any Error>
    }

    private struct Queue {
        var pending: [Job] = []
        var threads = 0
    }

    private let count: Int
    private let name: String
    private let makeServer: @Sendable () -> Server
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)

    /// - Parameter makeServer: runs once on each new thread and returns that thread's server.
    public init(count: Int, name: String, makeServer: @escaping @Sendable () -> Server) {
        self.count = max(1, count)
        self.name = name
        self.makeServer = makeServer
    }

    /// Runs `work` on the next free thread.
    public func run(_ work: Work) async throws -> Output {
        let cancellation = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let startThread = queue.withLock { queue -> Bool in
                    queue.pending.append(Job(work: work, cancellation: cancellation, continuation: continuation))
                    guard queue.threads < count else { return false }
                    queue.threads += 1
                    return true
                }
                if startThread { Thread { [self] in serve() }.start() }
                wake.signal()
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    @available(*, noasync)
    private func serve() {
        ThreadName.nameCurrentThread(name)
        let server = makeServer()
        while true {
            wake.wait()
            guard let job = queue.withLock({ $0.pending.isEmpty ? nil : $0.pending.removeFirst() }) else { continue }
            if job.cancellation.isCancelled {
                job.continuation.resume(throwing: CancellationError())
            } else {
                job.continuation.resume(with: server(job.work, job.cancellation))
            }
        }
    }
}

/// Set when the task waiting for a piece of work is cancelled.
public final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    /// A flag that is not set.
    public init() {}
    /// Sets the flag.
    public func cancel() { flag.store(true, ordering: .relaxed) }
    /// True once ``cancel()`` was called.
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
