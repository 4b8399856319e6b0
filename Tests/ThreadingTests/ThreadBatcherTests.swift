import Foundation
import Synchronization
import Testing
import Threading

@Suite("ThreadBatcher", .timeLimit(.minutes(1)))
struct ThreadBatcherTests {
    /// What the flushes saw: their batches, and the threads they ran on.
    private final class Flushes: Sendable {
        struct Seen: Sendable { var batches: [[Int]] = []; var threads: Set<pthread_t> = [] }
        let seen = Mutex(Seen())
        /// While true, a flush waits (at most 10 s) before it returns.
        let holding = Mutex(false)
        let entered = Mutex(0)

        @available(*, noasync)
        func flush(_ batch: [Int]) {
            let thread = pthread_self()
            seen.withLock { seen in
                seen.batches.append(batch)
                seen.threads.insert(thread)
            }
            entered.withLock { $0 += 1 }
            let deadline = Date().addingTimeInterval(10)
            while holding.withLock({ $0 }), Date() < deadline { Thread.sleep(forTimeInterval: 0.002) }
        }
    }

    private static func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    private struct WaitTimedOut: Error { let what: String }

    /// Items added while a flush runs wait for it, then go together, in order, in the next one;
    /// every flush runs on the batcher's one thread.
    @Test func itemsAddedDuringAFlushGoTogetherInTheNextOnTheBatchersThread() async throws {
        let flushes = Flushes()
        let batcher = try ThreadBatcher<Int>(name: "test-batcher", maxBatch: 100) { flushes.flush($0) }
        flushes.holding.withLock { $0 = true }
        batcher.add(1)
        try await Self.waitUntil("the first flush") { flushes.entered.withLock { $0 } == 1 }
        for item in 2...5 { #expect(batcher.add(item)) }
        flushes.holding.withLock { $0 = false }
        await batcher.waitUntilIdle()
        let seen = flushes.seen.withLock { $0 }
        #expect(seen.batches == [[1], [2, 3, 4, 5]])
        #expect(seen.threads.count == 1)
        await batcher.stop()
    }

    /// A flush takes at most `maxBatch` items; the rest go in the flushes after it.
    @Test func aFlushTakesAtMostTheLargestBatch() async throws {
        let flushes = Flushes()
        let batcher = try ThreadBatcher<Int>(name: "test-batcher", maxBatch: 2) { flushes.flush($0) }
        flushes.holding.withLock { $0 = true }
        batcher.add(0)
        try await Self.waitUntil("the first flush") { flushes.entered.withLock { $0 } == 1 }
        for item in 1...5 { batcher.add(item) }
        flushes.holding.withLock { $0 = false }
        await batcher.waitUntilIdle()
        #expect(flushes.seen.withLock { $0.batches } == [[0], [1, 2], [3, 4], [5]])
        await batcher.stop()
    }

    /// An idle thread waits without a timeout, so only the next item can wake it: items added one
    /// at a time, each after the last was flushed (the thread asleep), are each flushed.
    @Test func anIdleThreadIsWokenByTheNextItem() async throws {
        let flushes = Flushes()
        let batcher = try ThreadBatcher<Int>(name: "test-batcher", maxBatch: 10) { flushes.flush($0) }
        for item in 0..<50 {
            batcher.add(item)
            try await Self.waitUntil("item \(item)'s flush") { flushes.seen.withLock { $0.batches.last } == [item] }
            await batcher.waitUntilIdle()
        }
        #expect(flushes.seen.withLock { $0.batches } == (0..<50).map { [$0] })
        await batcher.stop()
    }

    /// `stop()` flushes what is queued, then refuses new items; `waitUntilIdle()` returns at once
    /// on a batcher that never started.
    @Test func stopFlushesWhatIsQueuedThenRefusesNewItems() async throws {
        let flushes = Flushes()
        let batcher = try ThreadBatcher<Int>(name: "test-batcher", maxBatch: 100) { flushes.flush($0) }
        flushes.holding.withLock { $0 = true }
        batcher.add(1)
        try await Self.waitUntil("the first flush") { flushes.entered.withLock { $0 } == 1 }
        batcher.add(2)
        let stopping = Task { await batcher.stop() }
        flushes.holding.withLock { $0 = false }
        await stopping.value
        #expect(flushes.seen.withLock { $0.batches } == [[1], [2]])
        #expect(!batcher.add(3))
        #expect(flushes.seen.withLock { $0.batches } == [[1], [2]])

        let unused = try ThreadBatcher<Int>(name: "test-batcher", maxBatch: 1) { flushes.flush($0) }
        await unused.waitUntilIdle()
        await unused.stop()
    }
}
