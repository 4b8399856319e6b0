import Synchronization

/// A one-waiter wake-up with a timeout: `wake()` from any task ends the current or next `wait`.
public final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation = 0
    }
    private let state = Mutex(State())

    public init() {}

    public func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else { state.pending = true; return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when woken (or if a wake came since the last wait), or after `timeout` seconds.
    public func wait(timeout: Double) async {
        let generation = state.withLock { state -> Int in
            state.generation += 1
            return state.generation
        }
        let timer = Task { [self] in
            // Cancelled: the wait already ended; a "timeout" now would wake the next wait early.
            guard (try? await Task.sleep(for: .seconds(timeout))) != nil else { return }
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard state.generation == generation else { return nil }
                guard let waiter = state.waiter else { state.pending = true; return nil }
                state.waiter = nil
                return waiter
            }
            waiter?.resume()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.pending { state.pending = false; return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        timer.cancel()
    }
}
