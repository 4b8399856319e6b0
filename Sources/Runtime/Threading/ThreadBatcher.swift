#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Collects items from any thread or task and hands them, in batches, to a blocking flush that
/// runs on a thread of its own (never Swift's cooperative pool).
///
/// While a flush runs, new items accumulate; when it ends, the next flush takes them (at most
/// `maxBatch`). An item reaching an idle thread wakes it at once (a ``WakePipe``); items added
/// while it works cost no system call. The thread starts with the first item.
public final class ThreadBatcher<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        /// The thread found nothing to do and waits (or is about to) for a wake-up.
        var sleeping = false
        /// A flush runs, or the thread is about to look for items.
        var busy = false
        var started = false
        var stopped = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let wake: WakePipe
    private let thread: OwnedThread
    private let maxBatch: Int
    private let flush: @Sendable ([Item]) -> Void

    /// - Parameters:
    ///   - name: the thread's name (Linux keeps at most 15 bytes of it: ``ThreadName``).
    ///   - maxBatch: the most items one flush takes (at least 1).
    ///   - flush: runs on the batcher's thread, blocking it, with the items in the order added.
    /// - Throws: ``WakePipeError`` when the process is out of descriptors.
    public init(name: String, maxBatch: Int, flush: @escaping @Sendable ([Item]) -> Void) throws(WakePipeError) {
        wake = try WakePipe()
        thread = OwnedThread(name: name)
        self.maxBatch = max(1, maxBatch)
        self.flush = flush
    }

    /// Queues `item` for a flush. Returns false, queuing nothing, once ``stop()`` was called.
    @discardableResult
    public func add(_ item: Item) -> Bool {
        let (accepted, first, wakeUp) = state.withLock { state -> (Bool, Bool, Bool) in
            guard !state.stopped else { return (false, false, false) }
            state.items.append(item)
            defer { state.started = true }
            let first = !state.started
            if first { state.busy = true }
            guard state.sleeping else { return (true, first, false) }
            state.sleeping = false
            state.busy = true
            return (true, first, true)
        }
        if first { thread.start { [self] owner in loop(owner) } }
        if wakeUp { wake.wake() }
        return accepted
    }

    /// Returns once nothing is queued and no flush runs.
    public func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if !state.busy && state.items.isEmpty { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Refuses new items, flushes those queued, and waits for the thread to end.
    public func stop() async {
        let started = state.withLock { state -> Bool in
            state.stopped = true
            return state.started
        }
        guard started else { return }
        thread.requestStop()
        wake.wake()
        await thread.stop()
    }

    @available(*, noasync)
    private func loop(_ owner: OwnedThread) {
        while true {
            let (batch, waiters) = state.withLock { state -> ([Item], [CheckedContinuation<Void, Never>]) in
                guard state.items.isEmpty else {
                    let count = min(state.items.count, maxBatch)
                    defer { state.items.removeFirst(count) }
                    state.busy = true
                    return (Array(state.items.prefix(count)), [])
                }
                state.busy = false
                state.sleeping = true
                defer { state.idleWaiters.removeAll() }
                return ([], state.idleWaiters)
            }
            waiters.forEach { $0.resume() }
            if !batch.isEmpty {
                flush(batch)
                continue
            }
            // `stopped` is set before the stop request: once it shows, nothing more is queued.
            if owner.isStopping { return }
            var descriptor = pollfd(fd: wake.readDescriptor, events: Int16(POLLIN), revents: 0)
            // No timeout: every item added to a sleeping thread, and `stop()`, wake it.
            _ = poll(&descriptor, 1, -1)
            wake.drain()
            state.withLock { state in
                if state.sleeping {
                    state.sleeping = false
                    state.busy = true
                }
            }
        }
    }
}
