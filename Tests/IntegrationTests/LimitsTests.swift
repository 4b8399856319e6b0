import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Synchronization
import Testing

/// A job kind on its own queue, so a test's in-process workers consume only it.
struct ProbeJob: JobParameters {
    static let kind = "limits-probe"
    static let queue = "limits-probe"
    /// Seconds to hold its slot.
    var hold: Double = 0
    /// Throw "retry at now + this" on its first run.
    var retryAfter: Double?
    /// Report this actual cost.
    var actualCost: Double?
}

/// Counts the probe handlers running at once in this process, and the first runs of each job.
final class ProbeLog: Sendable {
    private struct State {
        var running = 0
        var maxRunning = 0
        var seen: Set<UUID> = []
        var starts: [UUID: [Date]] = [:]
    }
    private let state = Mutex(State())

    var maxRunning: Int { state.withLock { $0.maxRunning } }
    func starts(_ id: UUID) -> [Date] { state.withLock { $0.starts[id] ?? [] } }

    /// `defaultLimit`: the kind's own limit key (`register(…, limit:)`), for jobs that name none.
    func registry(defaultLimit: String? = nil) -> JobRegistry {
        let registry = JobRegistry()
        registry.register(ProbeJob.self, timeout: 60, limit: defaultLimit) { parameters, context in
            let first = self.state.withLock { state -> Bool in
                state.running += 1
                state.maxRunning = max(state.maxRunning, state.running)
                state.starts[context.jobID, default: []].append(Date())
                return state.seen.insert(context.jobID).inserted
            }
            defer { self.state.withLock { $0.running -= 1 } }
            if first, let retryAfter = parameters.retryAfter {
                throw JobError.retryAt(Date().addingTimeInterval(retryAfter), reason: "429 Too Many Requests")
            }
            if parameters.hold > 0 { try await Task.sleep(for: .seconds(parameters.hold)) }
            if let cost = parameters.actualCost { context.reportCost(cost) }
        }
        return registry
    }
}

@Suite("Cluster-wide limits, pause and 'retry at' against PostgreSQL and RabbitMQ", .timeLimit(.minutes(4)))
struct LimitsTests {
    func enqueueProbes(_ count: Int, _ probe: ProbeJob = ProbeJob(), limit: String?, cost: Double? = nil,
                       in cluster: TestCluster) async throws -> [UUID] {
        try await cluster.client.enqueue((0..<count).map { _ in
            try JobRequest(probe, options: JobOptions(limit: limit, cost: cost))
        })
    }

    func succeeded(_ cluster: TestCluster) async throws -> Int {
        try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE state = 'succeeded'")
    }

    /// 4 workers × concurrency 8 under a 20/s limit with a burst of 3: the admission instants of
    /// 80 jobs never put more than burst + rate × T starts in any interval of T seconds, no job
    /// burns an attempt waiting, and the whole run cannot be faster than the limit allows.
    @Test func fourWorkersTogetherNeverExceedTheRate() async throws {
        let cluster = try await TestCluster.make()
        let rate = 20.0, burst = 3.0, jobs = 80
        try await cluster.client.setLimit(LimitSpec(name: "test:rate", rate: rate, burst: burst))
        let log = ProbeLog()
        let workers = (0..<4).map { _ in cluster.startWorker(registry: log.registry(), concurrency: 8, prefetch: 64) }
        _ = try await enqueueProbes(jobs, limit: "test:rate", in: cluster)
        try await cluster.wait(timeout: 90, for: "every job to succeed") { try await succeeded(cluster) == jobs }
        let rows = try await cluster.postgres.query("""
            SELECT extract(epoch FROM started_at)::float8 AS s, attempts, deferrals FROM jobs ORDER BY started_at
            """)
        let starts = rows.compactMap { $0.double("s") }
        #expect(starts.count == jobs)
        #expect(rows.allSatisfy { $0.int("attempts") == 1 }, "waiting for the limit never counts an attempt")
        // The excess was deferred: a job that started without waiting took a token, and no more
        // tokens than the burst and the refill since the first start allow were there to take.
        // (On a loaded machine a late delivery may find a refilled token and start at once.)
        let undeferred = rows.filter { ($0.int("deferrals") ?? 0) == 0 }.compactMap { $0.double("s") }
        let refill = ((undeferred.last ?? 0) - (starts.first ?? 0)) * rate
        #expect(Double(undeferred.count) <= burst + refill + 1e-6, "\(undeferred.count) jobs started without waiting")
        #expect(undeferred.count < jobs, "the limit deferred jobs")
        for (index, start) in starts.enumerated() {
            for interval in [1.0 / rate, 1.0, 2.0] {
                // started_at is stored to the microsecond: an end rounded by one.
                let inside = starts[index...].prefix { $0 <= start + interval - 2e-6 }.count
                #expect(Double(inside) <= burst + rate * interval + 1e-6, "\(inside) starts within \(interval) s")
            }
        }
        let span = (starts.last ?? 0) - (starts.first ?? 0)
        #expect(span >= (Double(jobs) - burst) / rate - 0.01, "\(jobs) jobs at \(rate)/s after a burst of \(burst) took \(span) s")
        for worker in workers { try await worker.stop() }
        await cluster.shutdown()
    }

    /// A concurrency cap holds across workers, and a worker killed with SIGKILL while it holds the
    /// only slot gives it back when it stops heartbeating: without any rescue (no coordinator runs),
    /// a waiting job then runs.
    @Test func aConcurrencyCapHoldsAndAKilledWorkersSlotComesBackWithItsHeartbeat() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.client.setLimit(LimitSpec(name: "test:cap", concurrency: 2))
        let log = ProbeLog()
        let workers = (0..<3).map { _ in cluster.startWorker(registry: log.registry(), concurrency: 4, prefetch: 16) }
        _ = try await enqueueProbes(12, ProbeJob(hold: 0.2), limit: "test:cap", in: cluster)
        try await cluster.wait(timeout: 90, for: "every capped job to succeed") { try await succeeded(cluster) == 12 }
        #expect(log.maxRunning == 2, "two at once across three workers of concurrency 4, never more")

        // The slot holder: a `reparto worker` process running a long sleep under a cap of 1.
        try await cluster.client.setLimit(LimitSpec(name: "test:cap", concurrency: 1))
        let holder = try await cluster.client.enqueue(SleepJob(seconds: 600), options: JobOptions(maxAttempts: 1, limit: "test:cap"))
        let victim = try RepartoProcess.start(TestCluster.workerArguments(["--queues", "default"]),
                                              environment: try cluster.processEnvironment())
        try await cluster.wait(for: "the holder to run") { try await cluster.client.job(holder).state == .running }
        let waiter = try await enqueueProbes(1, limit: "test:cap", in: cluster)[0]
        try await cluster.wait(for: "the waiter to be deferred by the held slot") {
            try await cluster.count("SELECT deferrals AS n FROM jobs WHERE id = $1", [waiter]) >= 1
        }
        #expect(try await cluster.client.job(waiter).state == .queued)
        kill(victim.processIdentifier, SIGKILL)
        await RepartoProcess.waitForExit(victim)
        try await cluster.wait(timeout: 60, for: "the waiter to run once the killed worker is stale") {
            try await cluster.client.job(waiter).state == .succeeded
        }
        #expect(try await cluster.client.job(holder).state == .running, "no rescue ran: the slot came back with the heartbeat")
        for worker in workers { try await worker.stop() }
        await cluster.shutdown()
    }

    /// A kind's default limit (`register(…, limit:)`) holds for jobs that name no limit, while
    /// a job naming another limit runs under that one instead.
    @Test func aKindsDefaultLimitAppliesToJobsThatNameNone() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.client.setLimit(LimitSpec(name: "test:kind", concurrency: 1))
        let log = ProbeLog()
        let workers = (0..<2).map { _ in cluster.startWorker(registry: log.registry(defaultLimit: "test:kind"), concurrency: 4, prefetch: 16) }
        _ = try await enqueueProbes(8, ProbeJob(hold: 0.1), limit: nil, in: cluster)
        try await cluster.wait(timeout: 90, for: "every job to succeed") { try await succeeded(cluster) == 8 }
        #expect(log.maxRunning == 1, "one at a time across two workers of concurrency 4")
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE limit_key = 'test:kind'") == 8,
                "each job records the limit it ran under")
        for worker in workers { try await worker.stop() }
        await cluster.shutdown()
    }

    /// A handler's "retry at T" (a 429) reschedules the job for T without counting an attempt,
    /// and blocks its limit until T: a job enqueued meanwhile does not start before T either.
    @Test func aRetryAtReschedulesWithoutAnAttemptAndHoldsBackTheWholeLimit() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.client.setLimit(LimitSpec(name: "test:provider", rate: 100, burst: 10))
        let log = ProbeLog()
        let worker = cluster.startWorker(registry: log.registry())
        let first = try await enqueueProbes(1, ProbeJob(retryAfter: 2), limit: "test:provider", in: cluster)[0]
        try await cluster.wait(for: "the 429 to reschedule the job") {
            try await cluster.count("SELECT rate_limited AS n FROM jobs WHERE id = $1", [first]) == 1
        }
        let blocked = try #require(try await cluster.client.limits().first?.gate.blockedUntil)
        let second = try await enqueueProbes(1, limit: "test:provider", in: cluster)[0]
        try await cluster.wait(timeout: 60, for: "both jobs to succeed") { try await succeeded(cluster) == 2 }

        let row = try #require(try await cluster.postgres.query(
            "SELECT attempts, rate_limited, last_error FROM jobs WHERE id = $1", [first]).first)
        #expect(row.int("attempts") == 1, "the 429 did not count as an attempt")
        #expect(row.string("last_error")?.contains("429 Too Many Requests") == true)
        let firstRuns = log.starts(first)
        #expect(firstRuns.count == 2)
        #expect(firstRuns[1] >= blocked, "the retry ran at or after its instant")
        let secondRun = try #require(log.starts(second).first)
        #expect(secondRun >= blocked, "the limit learned: another job of it waited for the instant too")
        try await worker.stop()
        await cluster.shutdown()
    }

    /// A provider asking to wait ten days blocks its limit for at most LimitGate.longestBlock, and
    /// `limit set` lifts the block: the rescheduled job runs at once instead of in ten days.
    @Test func aRetryAtBlocksAtMostAnHourAndSettingTheLimitLiftsTheBlock() async throws {
        let cluster = try await TestCluster.make()
        let spec = LimitSpec(name: "test:slow-provider", rate: 100, burst: 10)
        try await cluster.client.setLimit(spec)
        let log = ProbeLog()
        let worker = cluster.startWorker(registry: log.registry())
        let asked = Date()
        let first = try await enqueueProbes(1, ProbeJob(retryAfter: 10 * 86_400), limit: spec.name, in: cluster)[0]
        try await cluster.wait(for: "the 429 to reschedule the job") {
            try await cluster.count("SELECT rate_limited AS n FROM jobs WHERE id = $1", [first]) == 1
        }
        let blocked = try #require(try await cluster.client.limits().first?.gate.blockedUntil)
        #expect(blocked <= Date().addingTimeInterval(LimitGate.longestBlock + 5), "capped: \(blocked)")
        #expect(blocked >= asked.addingTimeInterval(LimitGate.longestBlock - 60), "still blocked for about the cap: \(blocked)")

        try await cluster.client.setLimit(spec)
        #expect(try await cluster.client.limits().first?.gate.blockedUntil == nil, "limit set lifts the block")
        try await cluster.wait(timeout: 60, for: "the rescheduled job to run now") { try await succeeded(cluster) == 1 }
        #expect(log.starts(first).count == 2)

        // A limit of its own cap (`limit set --max-block 2m`): the block and the job's wait stop there.
        let short = LimitSpec(name: "test:short-block", rate: 100, burst: 10, maxBlock: 120)
        try await cluster.client.setLimit(short)
        let second = try await enqueueProbes(1, ProbeJob(retryAfter: 10 * 86_400), limit: short.name, in: cluster)[0]
        try await cluster.wait(for: "the second 429 to reschedule its job") {
            try await cluster.count("SELECT rate_limited AS n FROM jobs WHERE id = $1", [second]) == 1
        }
        let shortBlock = try #require(try await cluster.client.limits().first { $0.spec.name == short.name }?.gate.blockedUntil)
        #expect(shortBlock <= Date().addingTimeInterval(125), "the limit's own cap: \(shortBlock)")
        #expect(try await cluster.count("""
            SELECT count(*) AS n FROM jobs WHERE id = $1 AND run_after <= now() + interval '125 seconds'
            """, [second]) == 1, "the job waits no longer than the cap")
        try await worker.stop()
        await cluster.shutdown()
    }

    /// A budget admits by estimated cost and learns the actual one.
    @Test func aBudgetDefersByEstimateAndIsCorrectedByTheActualCost() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.client.setLimit(LimitSpec(name: "test:tokens", budget: 100, budgetWindow: 3600))
        let log = ProbeLog()
        let worker = cluster.startWorker(registry: log.registry())
        _ = try await enqueueProbes(1, ProbeJob(actualCost: 10), limit: "test:tokens", cost: 60, in: cluster)
        try await cluster.wait(for: "the first job to succeed") { try await succeeded(cluster) == 1 }
        let left = try #require(try await cluster.client.limits().first?.gate.budgetLeft)
        #expect(left >= 90 && left <= 100, "estimate 60 taken, actual 10 charged: \(left) left")
        let big = try await enqueueProbes(1, limit: "test:tokens", cost: 150, in: cluster)[0]
        try await cluster.wait(for: "the over-budget job to be deferred") {
            try await cluster.count("SELECT deferrals AS n FROM jobs WHERE id = $1", [big]) >= 1
        }
        let waiting = try #require(try await cluster.client.limits().first)
        #expect(waiting.waiting == 1)
        #expect(try await cluster.client.job(big).state == .queued)
        try await worker.stop()
        await cluster.shutdown()
    }

    /// A job that reports its actual cost under a rate limit corrects nothing but the budget: the
    /// limit is not blocked (a cost correction once blocked it for its whole cap, an hour, so every
    /// job behind it waited an hour).
    @Test func aReportedCostDoesNotBlockARateLimit() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.client.setLimit(LimitSpec(name: "test:paced", rate: 20, burst: 1))
        let log = ProbeLog()
        let worker = cluster.startWorker(registry: log.registry(), concurrency: 4)
        _ = try await enqueueProbes(6, ProbeJob(actualCost: 1), limit: "test:paced", in: cluster)
        try await cluster.wait(timeout: 60, for: "every job to succeed at the limit's pace") { try await succeeded(cluster) == 6 }
        let gate = try #require(try await cluster.client.limits().first?.gate)
        #expect(gate.blockedUntil == nil, "blocked until \(String(describing: gate.blockedUntil))")
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE run_after > now() + interval '1 minute'") == 0)
        try await worker.stop()
        await cluster.shutdown()
    }

    /// A paused kind's jobs are delivered, parked and never run — across a worker restart — and
    /// all run once resumed, none with an attempt spent by the pause.
    @Test func aPauseHoldsEveryJobAcrossAWorkerRestartAndResumeReleasesThemAll() async throws {
        let cluster = try await TestCluster.make()
        let target = PauseTarget(.kind, ProbeJob.kind)
        #expect(try await cluster.client.pause(target))
        #expect(try await cluster.client.pause(target) == false, "pausing twice is harmless")
        let log = ProbeLog()
        let first = cluster.startWorker(registry: log.registry())
        _ = try await enqueueProbes(20, limit: nil, in: cluster)
        try await cluster.wait(for: "all 20 to be parked") {
            try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE run_after = 'infinity' AND publish_pending") == 20
        }
        try await first.stop()
        let second = cluster.startWorker(registry: log.registry())
        #expect(try await cluster.client.pauses().map(\.parked) == [20])
        #expect(try await succeeded(cluster) == 0)
        #expect(try await cluster.client.resume(target) == 20)
        try await cluster.wait(for: "every parked job to run") { try await succeeded(cluster) == 20 }
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE attempts <> 1") == 0)
        #expect(try await cluster.client.pauses().isEmpty)
        await #expect(throws: RepartoError.self) { try await cluster.client.resume(target) }
        try await second.stop()
        await cluster.shutdown()
    }

    /// A paused queue holds its jobs too; running jobs finish.
    @Test func pausingAQueueLetsRunningJobsFinishAndStartsNoOther() async throws {
        let cluster = try await TestCluster.make()
        let log = ProbeLog()
        let worker = cluster.startWorker(registry: log.registry())
        let running = try await enqueueProbes(1, ProbeJob(hold: 1), limit: nil, in: cluster)[0]
        try await cluster.wait(for: "the job to run") { try await cluster.client.job(running).state == .running }
        try await cluster.client.pause(PauseTarget(.queue, ProbeJob.queue))
        let held = try await enqueueProbes(3, limit: nil, in: cluster)
        try await cluster.wait(for: "the running job to finish") { try await cluster.client.job(running).state == .succeeded }
        try await cluster.wait(for: "the others to be parked") {
            try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE run_after = 'infinity'") == 3
        }
        for id in held { #expect(log.starts(id).isEmpty) }
        try await cluster.client.resume(PauseTarget(.queue, ProbeJob.queue))
        try await cluster.wait(for: "the held jobs to run") { try await succeeded(cluster) == 4 }
        try await worker.stop()
        await cluster.shutdown()
    }

    /// Limits and pauses show in the operations views that `reparto status` and the dashboard read.
    @Test func limitsAndPausesShowInTheOperationsViews() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.client.setLimit(LimitSpec(name: "test:view", rate: 5, burst: 2, concurrency: 3))
        try await cluster.client.pause(PauseTarget(.queue, "archive"))
        let limits = try await OpsView.limits.rows(on: cluster.postgres)
        #expect(limits.first?.string("name") == "test:view")
        #expect(limits.first?.int("concurrency") == 3)
        #expect(limits.first?.double("tokens") == 2)
        let pauses = try await OpsView.pauses.rows(on: cluster.postgres)
        #expect(pauses.first?.string("scope") == "queue")
        #expect(pauses.first?.string("name") == "archive")
        try await cluster.client.deleteLimit("test:view")
        #expect(try await cluster.client.limits().isEmpty)
        await #expect(throws: RepartoError.self) { try await cluster.client.deleteLimit("test:view") }
        await cluster.shutdown()
    }
}
