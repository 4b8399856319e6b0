import Synchronization
import Testing
import Threading

@Suite("DeadlineWatch", .timeLimit(.minutes(1)))
struct DeadlineWatchTests {
    /// Waits (without sleeping a fixed time) until `condition` holds, or fails after `seconds`.
    func eventually(_ seconds: Double = 10, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            if ContinuousClock.now > deadline { Issue.record("condition not met within \(seconds) s"); return }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func runsActionsInDeadlineOrderEvenWhenAnEarlierOneComesLater() async throws {
        let watch = DeadlineWatch(name: "test.deadlines")
        let fired = Mutex<[String]>([])
        watch.schedule(after: 0.4) { fired.withLock { $0.append("late") } }
        // Scheduled while the thread sleeps until the later deadline: it must wake for this one.
        watch.schedule(after: 0.05) { fired.withLock { $0.append("early") } }
        try await eventually { fired.withLock { $0.count } == 2 }
        #expect(fired.withLock { $0 } == ["early", "late"])
        #expect(watch.pending == 0)
    }

    @Test func aCancelledDeadlineNeverRunsAndIsForgottenAtOnce() async throws {
        let watch = DeadlineWatch(name: "test.deadlines")
        let fired = Atomic<Int>(0)
        let tokens = (0..<10_000).map { _ in watch.schedule(after: 3600) { fired.add(1, ordering: .relaxed) } }
        #expect(watch.pending == 10_000)
        tokens.forEach(watch.cancel)
        #expect(watch.pending == 0)
        let short = watch.schedule(after: 0.05) { fired.add(1, ordering: .relaxed) }
        watch.cancel(short)
        // A later deadline proves the thread went past the cancelled one without running it.
        let marker = Atomic<Bool>(false)
        watch.schedule(after: 0.1) { marker.store(true, ordering: .relaxed) }
        try await eventually { marker.load(ordering: .relaxed) }
        #expect(fired.load(ordering: .relaxed) == 0)
    }
}
