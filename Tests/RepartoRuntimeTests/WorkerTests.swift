@testable import RepartoRuntime
import Foundation
import Logging
import RepartoTestSupport
import Synchronization
import Testing

/// A `Worker` on the in-memory transport and storage: its whole path from delivery to
/// acknowledgement, without RabbitMQ or PostgreSQL.
@Suite(.timeLimit(.minutes(1))) struct WorkerTests {
    private struct Harness {
        let transport = InMemoryJobTransport()
        let storage = InMemoryWorkerStorage()
        let worker: Worker
        let running: Task<Void, any Error>

        init(concurrency: Int = 2, heartbeatInterval: Double = 3600) {
            let registry = JobRegistry.withBuiltins()
            worker = Worker(transport: transport, storage: storage, registry: registry,
                            settings: WorkerSettings(concurrency: concurrency, heartbeatInterval: heartbeatInterval, runsRelay: false),
                            logger: Logger(label: "test.worker"))
            running = Task { [worker] in try await worker.run() }
        }

        /// Expects job `id` to have succeeded in one attempt and its delivery (`tag`) to be acked,
        /// once `settlements` deliveries were settled.
        func expectSucceededOnceAndAcked(_ id: UUID, tag: UInt64, settlements: Int = 1) async {
            let settled = await transport.settlements(atLeast: settlements)
            #expect(settled[tag] == .ack)
            #expect(storage.row(id)?.state == .succeeded)
            #expect(storage.row(id)?.attempts == 1)
        }

        /// Ends the worker's run (the deliveries end) and waits for it.
        func stop() async throws {
            await transport.close()
            try await running.value
        }
    }

    struct ObservesStart: JobParameters {
        static let kind = "test.observes-start"
    }

    /// A worker runs its start hooks before its first job: what a job writes (a provider marked
    /// unconfigured) is not overwritten by the worker's own start. The job is delivered before
    /// the worker runs; the hook gives it a second to run (a worker that ran hooks beside its
    /// jobs ran it within that second, before the hook ended), and the job sees the hook done.
    @Test func startHooksFinishBeforeTheFirstJobRuns() async throws {
        let transport = InMemoryJobTransport()
        let storage = InMemoryWorkerStorage()
        let hookDone = Mutex(false)
        let sawHookDone = Mutex<Bool?>(nil)
        let registry = JobRegistry.withBuiltins()
        registry.onWorkerStart {
            let deadline = ContinuousClock.now + .seconds(1)
            while sawHookDone.withLock({ $0 }) == nil, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
            hookDone.withLock { $0 = true }
        }
        registry.register(ObservesStart.self) { _, _ in
            let done = hookDone.withLock { $0 }
            sawHookDone.withLock { $0 = done }
        }
        let id = storage.insert(kind: ObservesStart.kind)
        let delivery = transport.deliver(id.uuidString)
        let worker = Worker(transport: transport, storage: storage, registry: registry,
                            settings: WorkerSettings(concurrency: 2, heartbeatInterval: 3600, runsRelay: false),
                            logger: Logger(label: "test.worker"))
        let running = Task { try await worker.run() }
        let settled = await transport.settlements(atLeast: 1)
        #expect(settled[delivery.deliveryTag] == .ack)
        #expect(sawHookDone.withLock { $0 } == true, "the job ran after the start hook finished")
        await transport.close()
        try await running.value
    }

    struct Tracked: JobParameters {
        static let kind = "test.tracked"
        var name: String
    }

    /// What ran beside what: each job records the others running when it started; "a" runs until
    /// released, "s" gives anything started beside it a second to show up.
    private final class Tracker: Sendable {
        struct Seen: Sendable { var running: Set<String> = []; var beside: [String: Set<String>] = [:]; var releasedA = false }
        let seen = Mutex(Seen())

        func run(_ name: String) async {
            seen.withLock { seen in
                seen.beside[name] = seen.running
                for other in seen.running { seen.beside[other, default: []].insert(name) }
                seen.running.insert(name)
            }
            let deadline = ContinuousClock.now + .seconds(name == "a" ? 30 : name == "s" ? 1 : 0)
            while ContinuousClock.now < deadline {
                if name == "a", seen.withLock({ $0.releasedA }) { break }
                try? await Task.sleep(for: .milliseconds(5))
            }
            _ = seen.withLock { $0.running.remove(name) }
        }
    }

    /// A worker of three slots running ``Tracked`` jobs from in-memory storage (not started).
    private struct TrackedWorker {
        let transport = InMemoryJobTransport()
        let storage: InMemoryWorkerStorage
        let tracker: Tracker
        let worker: Worker

        init() {
            let storage = InMemoryWorkerStorage()
            let tracker = Tracker()
            let registry = JobRegistry.withBuiltins()
            registry.register(Tracked.self) { parameters, _ in await tracker.run(parameters.name) }
            (self.storage, self.tracker) = (storage, tracker)
            worker = Worker(transport: transport, storage: storage, registry: registry,
                            settings: WorkerSettings(concurrency: 3, heartbeatInterval: 3600, runsRelay: false),
                            logger: Logger(label: "test.worker"))
        }

        /// A waiting job named `name`; with `suspect`, one whose last attempt ended with its worker gone.
        func insert(_ name: String, suspect: Bool = false) -> UUID {
            let id = storage.insert(kind: Tracked.kind, parameters: #"{"name":"\#(name)"}"#)
            if suspect { storage.update(id) { $0.crashes = 1; $0.state = .failed } }
            return id
        }
    }

    /// A suspect (its last attempt ended with its worker gone) waits until the worker runs nothing,
    /// runs alone, and nothing is claimed beside it; the deliveries behind it wait, then run.
    @Test func aSuspectRunsAloneAndNothingStartsBesideIt() async throws {
        let fixture = TrackedWorker()
        let (transport, storage, tracker) = (fixture.transport, fixture.storage, fixture.tracker)
        let (a, suspect, b, c) = (fixture.insert("a"), fixture.insert("s", suspect: true), fixture.insert("b"), fixture.insert("c"))
        let running = Task { try await fixture.worker.run() }
        _ = transport.deliver(a.uuidString)
        try await Self.waitUntil("a to run") { tracker.seen.withLock { $0.running.contains("a") } }
        for id in [suspect, b, c] { _ = transport.deliver(id.uuidString) }
        try await Self.waitUntil("the suspect's claim to leave it waiting") {
            storage.controlledClaimCalls.contains { $0.contains(suspect) }
        }
        tracker.seen.withLock { $0.releasedA = true }
        let settled = await transport.settlements(atLeast: 4)
        #expect(settled.count == 4)
        let seen = tracker.seen.withLock { $0 }
        #expect(seen.beside["s"] == [], "the suspect ran beside \(seen.beside["s"].map { $0.sorted() } ?? [])")
        #expect(seen.beside["b"] != nil && seen.beside["c"] != nil, "the deliveries behind the suspect ran")
        #expect([a, suspect, b, c].allSatisfy { storage.row($0)?.state == .succeeded })
        #expect(storage.row(suspect)?.crashes == 0, "an attempt that ends otherwise resets the crashes")
        await transport.close()
        try await running.value
    }

    /// A suspect also waits for the outcomes of the jobs that ended before it to be committed:
    /// until then their rows still say `running`, and the rescue, which judges "alone" by the
    /// rows, counted a crash in that window against the job that had ended too (seen in CI as
    /// an innocent job `running` beside a poison job's attempt).
    @Test func aSuspectWaitsForTheOutcomesBeforeItToBeCommitted() async throws {
        let fixture = TrackedWorker()
        let (transport, storage, tracker) = (fixture.transport, fixture.storage, fixture.tracker)
        let (b, suspect) = (fixture.insert("b"), fixture.insert("s", suspect: true))
        let running = Task { try await fixture.worker.run() }
        storage.holdCommits(true)
        _ = transport.deliver(b.uuidString)
        try await Self.waitUntil("b to run and end, its outcome held") {
            tracker.seen.withLock { $0.beside["b"] != nil && $0.running.isEmpty }
        }
        _ = transport.deliver(suspect.uuidString)
        try await Self.waitUntil("the suspect's claim to leave it waiting") {
            storage.controlledClaimCalls.contains { $0.contains(suspect) }
        }
        #expect(storage.row(b)?.state == .running, "b's outcome is held")
        storage.holdCommits(false)
        let settled = await transport.settlements(atLeast: 2)
        #expect(settled.count == 2)
        #expect(storage.besideAloneClaims == [[]], "the suspect was claimed beside \(storage.besideAloneClaims)")
        #expect([b, suspect].allSatisfy { storage.row($0)?.state == .succeeded })
        await transport.close()
        try await running.value
    }

    /// A worker's heartbeats go on while every thread of Swift's cooperative pool is blocked (a
    /// handler's CPU-bound or blocking work): timed on the pool, they stopped, and the rescue
    /// counted a crash against each job a live worker ran. One blocker per pool thread holds its
    /// thread until all are held at once, then until three more heartbeats are recorded.
    @Test func heartbeatsGoOnWhileEveryPoolThreadIsBusy() async throws {
        let harness = Harness(heartbeatInterval: 0.05)
        let workerID = harness.worker.identity.id
        // The registration's, the renewal before consuming, then the heartbeat thread's first: the
        // thread runs (blocking the pool before it started would hold the worker's start-up).
        try await Self.waitUntil("the heartbeat thread's first heartbeat") { harness.storage.heartbeatCount(workerID) > 2 }
        let width = ProcessInfo.processInfo.activeProcessorCount
        let arrived = Arrivals()
        let seen: [Int?] = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<width {
                group.addTask { Self.holdPoolThread(arrived: arrived, width: width) { harness.storage.heartbeatCount(workerID) } }
            }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(!seen.contains(nil), "the \(width) blockers were never all running at once")
        #expect(seen.allSatisfy { ($0 ?? 0) >= 3 }, "heartbeats while the pool was blocked: \(seen)")
        try await harness.stop()
    }

    /// Blocks its thread until `width` callers are blocked at once, then until `count` has grown
    /// by three; returns how much it grew (nil: the callers were never all blocked), within 10 s.
    private static func holdPoolThread(arrived: Arrivals, width: Int, count: () -> Int) -> Int? {
        let deadline = ContinuousClock.now + .seconds(10)
        arrived.count.withLock { $0 += 1 }
        while arrived.count.withLock({ $0 }) < width {
            guard ContinuousClock.now < deadline else { return nil }
            usleep(1_000)
        }
        let start = count()
        while count() < start + 3, ContinuousClock.now < deadline { usleep(1_000) }
        return count() - start
    }

    private final class Arrivals: Sendable {
        let count = Mutex(0)
    }

    private static func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting for \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func aDeliveredJobRunsIsCommittedSucceededThenAcked() async throws {
        let harness = Harness()
        let id = harness.storage.insert(kind: NoopJob.kind)
        let delivery = harness.transport.deliver(id.uuidString)
        await harness.expectSucceededOnceAndAcked(id, tag: delivery.deliveryTag)
        try await harness.stop()
    }

    /// A claim is two steps, the second only for what the first left (here a finished job's
    /// redelivery). The first commits what it claims; when the second fails, it alone is retried,
    /// and the first step's job still runs, once.
    @Test func aFailedSecondClaimStepIsRetriedAloneAndTheClaimedJobRuns() async throws {
        // Slots for the held claim's job and both of the next batch, however soon the first ends;
        // heartbeats that report the deliveries waiting behind the held claim.
        let harness = Harness(concurrency: 3, heartbeatInterval: 0.05)
        let first = harness.storage.insert(kind: NoopJob.kind)
        let claimable = harness.storage.insert(kind: NoopJob.kind)
        let finished = harness.storage.insert(kind: NoopJob.kind)
        harness.storage.update(finished) { $0.state = .succeeded }
        harness.storage.failControlledClaims(1)
        // The first delivery's claim is held, so the next two wait for one batch together.
        harness.storage.holdClaims()
        _ = harness.transport.deliver(first.uuidString)
        let deadline = ContinuousClock.now + .seconds(30)
        while harness.storage.claimCalls != [[first]] {
            guard ContinuousClock.now < deadline else {
                Issue.record("the first delivery's claim never started: \(harness.storage.claimCalls)")
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let claimableDelivery = harness.transport.deliver(claimable.uuidString)
        let finishedDelivery = harness.transport.deliver(finished.uuidString)
        while harness.storage.held(harness.worker.identity.id) != ["default": 2] {
            guard ContinuousClock.now < deadline else {
                Issue.record("the two deliveries never waited together behind the held claim")
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        harness.storage.releaseClaims()
        let settled = await harness.transport.settlements(atLeast: 3)
        #expect(settled[claimableDelivery.deliveryTag] == .ack)
        #expect(settled[finishedDelivery.deliveryTag] == .ack)
        #expect(harness.storage.row(claimable)?.state == .succeeded)
        #expect(harness.storage.row(claimable)?.attempts == 1)
        #expect(harness.storage.row(finished)?.attempts == 0)
        #expect(harness.storage.claimCalls.contains([claimable, finished]), "one batch")
        #expect(harness.storage.controlledClaimCalls == [[finished], [finished]], "the second step alone, retried once")
        try await harness.stop()
    }

    /// A worker heartbeats again once it is ready to consume, before its first job: its
    /// registration's heartbeat is as old as its start-up, and a start slower than three
    /// heartbeat intervals made the coordinator rescue its first jobs (a CI run under load). The
    /// start hook takes its time and the loop's own heartbeats are an hour apart, so only that
    /// renewal can make the count two.
    @Test func aWorkerHeartbeatsAgainAfterItsStartUpBeforeItsFirstJob() async throws {
        let transport = InMemoryJobTransport()
        let storage = InMemoryWorkerStorage()
        let registry = JobRegistry.withBuiltins()
        registry.onWorkerStart { try? await Task.sleep(for: .milliseconds(200)) }
        let heartbeatsAtFirstJob = Mutex<Int?>(nil)
        let workerID = Mutex<String?>(nil)
        registry.register(ObservesStart.self) { _, _ in
            let id = workerID.withLock { $0 } ?? ""
            heartbeatsAtFirstJob.withLock { $0 = storage.heartbeatCount(id) }
        }
        let worker = Worker(transport: transport, storage: storage, registry: registry,
                            settings: WorkerSettings(concurrency: 2, heartbeatInterval: 3600, runsRelay: false),
                            logger: Logger(label: "test.worker"))
        workerID.withLock { $0 = worker.identity.id }
        let running = Task { try await worker.run() }
        let id = storage.insert(kind: ObservesStart.kind)
        let delivery = transport.deliver(id.uuidString)
        let settled = await transport.settlements(atLeast: 1)
        #expect(settled[delivery.deliveryTag] == .ack)
        #expect(heartbeatsAtFirstJob.withLock { $0 } == 2, "the registration's and the renewal before consuming")
        await transport.close()
        try await running.value
    }

    /// A delivery is claimed on arrival, by the thread that delivered it (the consumer's own,
    /// with RabbitMQ), in one claim and never in a task. A worker that claimed in a task of its
    /// own never claimed on arrival.
    ///
    /// Not asserted when the delivery returns: the thread that claimed the first delivery may
    /// still be finishing that claim (its job already acknowledged), and then it, looping,
    /// claims the second on arrival just after (seen under CI's load).
    @Test func aDeliveryIsClaimedOnTheThreadThatDeliveredIt() async throws {
        let harness = Harness()
        let first = harness.storage.insert(kind: NoopJob.kind)
        _ = harness.transport.deliver(first.uuidString)
        _ = await harness.transport.settlements(atLeast: 1)  // the worker runs: it claims on arrival now
        let (before, callsBefore) = (harness.storage.arrivalClaims, harness.storage.claimCalls.count)
        let id = harness.storage.insert(kind: NoopJob.kind)
        let delivery = harness.transport.deliver(id.uuidString)
        await harness.expectSucceededOnceAndAcked(id, tag: delivery.deliveryTag, settlements: 2)
        #expect(harness.storage.arrivalClaims == before + 1)
        #expect(harness.storage.claimCalls.count == callsBefore + 1, "\(harness.storage.claimCalls)")
        try await harness.stop()
    }

    /// A claim that fails on arrival (the connection was lost) is made again in a task, with the
    /// usual retries, and its job runs once.
    @Test func aClaimThatFailsOnArrivalIsMadeInATaskAndItsJobRunsOnce() async throws {
        let harness = Harness()
        harness.storage.failArrivalClaims(1)
        let id = harness.storage.insert(kind: NoopJob.kind)
        let delivery = harness.transport.deliver(id.uuidString)
        await harness.expectSucceededOnceAndAcked(id, tag: delivery.deliveryTag)
        #expect(harness.storage.arrivalClaims == 0)
        #expect(harness.storage.claimCalls == [[id]], "claimed once, in a task")
        try await harness.stop()
    }

    /// A plain success is committed on the worker's completion thread, not through the batcher
    /// of tasks, and acked. When that commit fails (the connection was lost), it is made again
    /// from a task, with the usual retries: the job is committed, counted and acked once.
    @Test(arguments: [false, true]) func aPlainSuccessIsCommittedOnTheCompletionThread(failing: Bool) async throws {
        let harness = Harness()
        if failing { harness.storage.failThreadCompletions(1) }
        let id = harness.storage.insert(kind: NoopJob.kind)
        let delivery = harness.transport.deliver(id.uuidString)
        await harness.expectSucceededOnceAndAcked(id, tag: delivery.deliveryTag)
        #expect(harness.storage.threadCompletions == (failing ? [] : [[id]]))
        #expect(harness.storage.completeCalls == (failing ? [[id]] : []))
        try await harness.stop()
        #expect(harness.storage.stopped(harness.worker.identity.id)?.succeeded == 1)
    }

    struct Held: JobParameters {
        static let kind = "test.held"
    }

    /// What the completion thread's commit leaves (here a success fenced out: the job was taken
    /// back from this worker meanwhile) goes to the batcher, which finds it fenced out too and
    /// acks it uncounted.
    @Test func aSuccessTheCompletionThreadLeavesIsCommittedFromATaskAndAckedUncounted() async throws {
        let transport = InMemoryJobTransport()
        let storage = InMemoryWorkerStorage()
        let entered = Mutex(false)
        let released = Mutex(false)
        let registry = JobRegistry.withBuiltins()
        registry.register(Held.self) { _, _ in
            entered.withLock { $0 = true }
            let deadline = ContinuousClock.now + .seconds(30)
            while !released.withLock({ $0 }), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        }
        let worker = Worker(transport: transport, storage: storage, registry: registry,
                            settings: WorkerSettings(concurrency: 2, heartbeatInterval: 3600, runsRelay: false),
                            logger: Logger(label: "test.worker"))
        let running = Task { try await worker.run() }
        let id = storage.insert(kind: Held.kind)
        let delivery = transport.deliver(id.uuidString)
        try await Self.waitUntil("the job to run") { entered.withLock { $0 } }
        storage.update(id) { $0.state = .queued; $0.workerID = nil }  // taken back meanwhile (a rescue)
        released.withLock { $0 = true }
        let settled = await transport.settlements(atLeast: 1)
        #expect(settled[delivery.deliveryTag] == .ack)
        #expect(storage.threadCompletions == [[id]])
        #expect(storage.completeCalls == [[id]])
        #expect(storage.row(id)?.state == .queued)
        await transport.close()
        try await running.value
        #expect(storage.stopped(worker.identity.id)?.succeeded == 0)
    }

    @Test func aRetryableFailureIsCommittedFailedWithABackoffAndAcked() async throws {
        let harness = Harness()
        let id = harness.storage.insert(kind: FailJob.kind, parameters: #"{"message": "flaky"}"#, maxAttempts: 3)
        let delivery = harness.transport.deliver(id.uuidString)
        let settled = await harness.transport.settlements(atLeast: 1)
        #expect(settled[delivery.deliveryTag] == .ack)
        let row = try #require(harness.storage.row(id))
        #expect(row.state == .failed)
        #expect(row.publishPending)
        #expect((row.retryDelay ?? 0) > 0)
        #expect(row.lastError == "flaky")
        try await harness.stop()
    }

    @Test func aPermanentFailureIsDeadAndDeadLettered() async throws {
        let harness = Harness()
        let id = harness.storage.insert(kind: FailJob.kind, parameters: #"{"message": "no", "permanent": true}"#, maxAttempts: 3)
        let delivery = harness.transport.deliver(id.uuidString)
        let settled = await harness.transport.settlements(atLeast: 1)
        #expect(settled[delivery.deliveryTag] == .reject(requeue: false))
        #expect(harness.storage.row(id)?.state == .dead)
        try await harness.stop()
    }

    @Test func theLastAttemptsFailureIsDead() async throws {
        let harness = Harness()
        let id = harness.storage.insert(kind: FailJob.kind, parameters: #"{"message": "again"}"#, maxAttempts: 2)
        harness.storage.update(id) { $0.attempts = 1; $0.state = .failed }
        harness.transport.deliver(id.uuidString)
        _ = await harness.transport.settlements(atLeast: 1)
        let row = try #require(harness.storage.row(id))
        #expect(row.state == .dead)
        #expect(row.attempts == 2)
        #expect(row.lastError == "again (gave up after 2 attempts)")
        try await harness.stop()
    }

    @Test func aMessageThatIsNotAJobIDIsDeadLettered() async throws {
        let harness = Harness()
        let delivery = harness.transport.deliver("not a uuid")
        let settled = await harness.transport.settlements(atLeast: 1)
        #expect(settled[delivery.deliveryTag] == .reject(requeue: false))
        try await harness.stop()
    }

    @Test func aRedeliveryOfAFinishedJobIsAckedWithoutRunningIt() async throws {
        let harness = Harness()
        let id = harness.storage.insert(kind: FailJob.kind, parameters: #"{"message": "would fail"}"#)
        harness.storage.update(id) { $0.state = .succeeded; $0.attempts = 1 }
        let delivery = harness.transport.deliver(id.uuidString, redelivered: true)
        let settled = await harness.transport.settlements(atLeast: 1)
        #expect(settled[delivery.deliveryTag] == .ack)
        #expect(harness.storage.row(id)?.state == .succeeded)
        #expect(harness.storage.row(id)?.attempts == 1, "not claimed again")
        try await harness.stop()
    }

    @Test func aJobOfAnUnknownKindIsDead() async throws {
        let harness = Harness()
        let id = harness.storage.insert(kind: "no-such-kind", maxAttempts: 5)
        let delivery = harness.transport.deliver(id.uuidString)
        let settled = await harness.transport.settlements(atLeast: 1)
        #expect(settled[delivery.deliveryTag] == .reject(requeue: false))
        #expect(harness.storage.row(id)?.state == .dead)
        try await harness.stop()
    }

    @Test func aJobRunningOnALiveWorkerIsNotClaimedByAnother() async throws {
        let harness = Harness()
        let other = WorkerIdentity(queues: ["default"], concurrency: 1, heartbeatInterval: 2)
        _ = try harness.storage.heartbeat(other, succeeded: 0, failed: 0, inFlight: 1, local: [], held: [:])
        let id = harness.storage.insert(kind: NoopJob.kind)
        harness.storage.update(id) { $0.state = .running; $0.attempts = 1; $0.workerID = other.id }
        let delivery = harness.transport.deliver(id.uuidString, redelivered: true)
        let settled = await harness.transport.settlements(atLeast: 1)
        #expect(settled[delivery.deliveryTag] == .ack)
        #expect(harness.storage.row(id)?.workerID == other.id)
        #expect(harness.storage.row(id)?.state == .running)
        try await harness.stop()
    }

    /// Claim only what can start: with both slots busy, the deliveries behind them stay unclaimed
    /// (queued, no attempt counted), so a worker that died now would charge them nothing.
    @Test func deliveriesBeyondTheFreeSlotsAreNotClaimed() async throws {
        let harness = Harness()  // two slots
        let long = (0..<2).map { _ in harness.storage.insert(kind: SleepJob.kind, parameters: #"{"seconds": 600}"#) }
        let waiting = (0..<5).map { _ in harness.storage.insert(kind: NoopJob.kind) }
        for id in long + waiting { harness.transport.deliver(id.uuidString) }
        let deadline = ContinuousClock.now + .seconds(30)
        while !long.allSatisfy({ harness.storage.row($0)?.state == .running }) {
            guard ContinuousClock.now < deadline else { Issue.record("the long jobs never started"); break }
            try await Task.sleep(for: .milliseconds(10))
        }
        // Both slots are taken until the long jobs end: nothing else may have been claimed.
        #expect(waiting.allSatisfy { harness.storage.row($0)?.state == .queued && harness.storage.row($0)?.attempts == 0 })
        try await harness.stop()
    }

    @Test func manyJobsAreAllCommittedAndTheWorkerRecordsItsCountsWhenItStops() async throws {
        let harness = Harness()
        let ids = (0..<20).map { _ in harness.storage.insert(kind: NoopJob.kind) }
        for id in ids { harness.transport.deliver(id.uuidString) }
        let settled = await harness.transport.settlements(atLeast: 20)
        #expect(settled.values.allSatisfy { $0 == .ack })
        #expect(ids.allSatisfy { harness.storage.row($0)?.state == .succeeded })
        try await harness.stop()
        #expect(harness.storage.stopped(harness.worker.identity.id)?.succeeded == 20)
    }
}
