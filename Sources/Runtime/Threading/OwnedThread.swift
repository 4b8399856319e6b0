import Foundation
import Synchronization

/// A loop on a dedicated thread (never Swift's cooperative pool), for code that owns blocking C
/// connections. `stop()` asks the loop to end and waits for it without blocking a task.
public final class OwnedThread: Sendable {
    private struct State {
        var stopping = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    private let name: String

    /// A thread named `name` (not started yet).
    public init(name: String) { self.name = name }

    /// True once `stop()` was called; the loop checks it between steps.
    public var isStopping: Bool { state.withLock { $0.stopping } }

    /// Starts `body` on a new thread; it should return soon after ``isStopping`` becomes true.
    public func start(_ body: @escaping @Sendable (OwnedThread) -> Void) {
        let thread = Thread { [self] in
            // Named from inside: on Linux a name given before `start()` is not applied.
            ThreadName.nameCurrentThread(name)
            body(self)
            let waiters = state.withLock { state in
                state.finished = true
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }
        thread.start()
    }

    /// Asks the loop to end without waiting.
    public func requestStop() { state.withLock { $0.stopping = true } }

    /// Asks the loop to end and waits until it has.
    public func stop() async {
        requestStop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.finished { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Sleeps in small steps so a stop request is noticed quickly.
    @available(*, noasync)
    public func sleep(_ seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while !isStopping, Date() < end { Thread.sleep(forTimeInterval: min(0.05, max(0, end.timeIntervalSinceNow))) }
    }
}
