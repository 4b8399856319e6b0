@testable import RepartoRuntime
import Foundation
import Logging
import RepartoTestSupport
import Testing

/// What the leading relay takes for lost: published jobs whose message is neither ready in the
/// broker's queue nor held unclaimed by a worker; and the worker's report of what it holds.
@Suite(.timeLimit(.minutes(1))) struct LostMessagesTests {
    @Test(arguments: [
        (waiting: 10, ready: 10, held: 0, lost: 0),
        (waiting: 10, ready: 4, held: 0, lost: 6),
        // Prefetched deliveries a busy worker has not claimed are not lost.
        (waiting: 10, ready: 4, held: 6, lost: 0),
        (waiting: 10, ready: 0, held: 7, lost: 3),
        // Counts from different moments: more ready and held than waiting is nothing lost.
        (waiting: 10, ready: 8, held: 5, lost: 0),
        (waiting: 0, ready: 3, held: 0, lost: 0),
        (waiting: 5, ready: 0, held: -2, lost: 5),
    ])
    func lostIsWaitingMinusReadyMinusHeld(_ row: (waiting: Int, ready: Int, held: Int, lost: Int)) {
        #expect(OutboxRelay.lostMessages(waiting: row.waiting, ready: row.ready, held: row.held) == row.lost)
    }

    @Test func aBusyWorkerReportsTheDeliveriesItHoldsUnclaimed() async throws {
        let transport = InMemoryJobTransport()
        let storage = InMemoryWorkerStorage()
        let worker = Worker(transport: transport, storage: storage, registry: JobRegistry.withBuiltins(),
                            settings: WorkerSettings(concurrency: 1, heartbeatInterval: 0.05, runsRelay: false),
                            logger: Logger(label: "test.worker"))
        let running = Task { try await worker.run() }
        let long = storage.insert(kind: SleepJob.kind, parameters: #"{"seconds": 600}"#)
        let waiting = (0..<3).map { _ in storage.insert(kind: NoopJob.kind) }
        for id in [long] + waiting { transport.deliver(id.uuidString) }
        let deadline = ContinuousClock.now + .seconds(30)
        while storage.held(worker.identity.id) != ["default": 3] {
            guard ContinuousClock.now < deadline else {
                Issue.record("the worker never reported its three held deliveries: \(String(describing: storage.held(worker.identity.id)))")
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(storage.row(long)?.state == .running)
        #expect(waiting.allSatisfy { storage.row($0)?.state == .queued })
        await transport.close()
        running.cancel()
        _ = try? await running.value
    }
}
