import Synchronization

/// Collects items from many tasks and hands them to one flush at a time.
///
/// While a flush runs, new items accumulate; when it ends, the next flush takes all of them.
/// Under load this batches naturally (one database round trip for hundreds of jobs), and an item
/// arriving at an idle batcher is flushed at once, with no added delay.
final class Batcher<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var flushing = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let maxBatch: Int
    private let flush: @Sendable ([Item]) async -> Void

    init(maxBatch: Int, flush: @escaping @Sendable ([Item]) async -> Void) {
        self.maxBatch = maxBatch
        self.flush = flush
    }

    func add(_ item: Item) { add(contentsOf: [item]) }

    func add(contentsOf items: [Item]) {
        let start = state.withLock { state -> Bool in
            state.items.append(contentsOf: items)
            if state.flushing { return false }
            state.flushing = true
            return true
        }
        if start { Task { await drain() } }
    }

    /// Returns once nothing is queued and no flush runs.
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if !state.flushing && state.items.isEmpty { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state -> [Item] in
                let count = min(state.items.count, maxBatch)
                defer { state.items.removeFirst(count) }
                return Array(state.items.prefix(count))
            }
            if batch.isEmpty {
                let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                    guard state.items.isEmpty else { return nil }
                    state.flushing = false
                    defer { state.idleWaiters.removeAll() }
                    return state.idleWaiters
                }
                guard let waiters else { continue }
                waiters.forEach { $0.resume() }
                return
            }
            await flush(batch)
        }
    }
}
