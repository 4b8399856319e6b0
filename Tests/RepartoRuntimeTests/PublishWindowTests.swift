import Foundation
@testable import RepartoRuntime
import Testing

/// The relay's batches in flight between their publish and the broker's confirms.
@Suite("outbox relay: the window of batches in flight", .timeLimit(.minutes(1)))
struct PublishWindowTests {
    static func entries(_ count: Int, queue: String = "default") -> [OutboxEntry] {
        (0..<count).map { _ in OutboxEntry(id: UUID(), kind: "noop", queue: queue, priority: 4) }
    }

    @Test func aBatchLeavesOnlyWhenEveryMessageUpToItsLastTagIsConfirmed() {
        var window = PublishWindow(capacity: 4)
        let first = Self.entries(3), second = Self.entries(2)
        let start = ContinuousClock.now
        window.add(first, lastTag: 3, at: start)
        window.add(second, lastTag: 5, at: start)
        // Confirms through tag 4: the first batch is done, the second waits for tag 5.
        #expect(window.retire(confirmed: { $0 <= 4 }) == 3)
        #expect(window.ids == second.map(\.id))
        #expect(window.oldestPublishedAt == start)
        #expect(window.retire(confirmed: { $0 <= 4 }) == 0)
        #expect(window.retire(confirmed: { $0 <= 5 }) == 2)
        #expect(window.isEmpty && window.oldestPublishedAt == nil)
    }

    @Test func aLaterBatchConfirmedFirstWaitsForTheOlderOne() {
        // Confirms come in order on one channel, but a window never retires past an unconfirmed batch.
        var window = PublishWindow(capacity: 4)
        window.add(Self.entries(1), lastTag: 1, at: .now)
        window.add(Self.entries(1), lastTag: 2, at: .now)
        #expect(window.retire(confirmed: { $0 == 2 }) == 0)
        #expect(window.batches.count == 2)
    }

    @Test func whatAFailedChannelLeavesIsEveryJobInFlightOnce() {
        var window = PublishWindow(capacity: 2)
        let first = Self.entries(2), second = Self.entries(3)
        window.add(first, lastTag: 2, at: .now)
        #expect(!window.isFull)
        window.add(second, lastTag: 5, at: .now)
        #expect(window.isFull)
        #expect(window.removeAll() == (first + second).map(\.id))
        #expect(window.isEmpty && !window.isFull)
        #expect(window.removeAll().isEmpty)
    }

    @Test func anEmptyBatchIsNotInFlight() {
        var window = PublishWindow(capacity: 1)
        window.add([], lastTag: 0, at: .now)
        #expect(window.isEmpty)
    }

    @Test func returnedJobsNameTheQueuesToDeclareAgain() {
        var window = PublishWindow(capacity: 4)
        let a = Self.entries(2, queue: "a"), b = Self.entries(1, queue: "b")
        window.add(a + b, lastTag: 3, at: .now)
        #expect(window.queues(of: [b[0].id]) == ["b"])
        #expect(window.queues(of: [a[1].id, b[0].id]) == ["a", "b"])
        #expect(window.queues(of: [UUID()]).isEmpty)
    }
}
