import Foundation
import RepartoRuntime
import RepartoTestSupport
import Synchronization
import Testing

/// Restarts the shared servers, so CI runs this suite on its own (`scripts/test` does).
@Suite("Recovery across server restarts", .serialized, .timeLimit(.minutes(4)))
struct RestartTests {
    private func services(_ command: String) async throws {
        let process = Process()
        process.executableURL = TestEnvironment.repositoryRoot.appendingPathComponent("scripts/services")
        process.arguments = [command]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        await RepartoProcess.waitForExit(process, timeout: 180)
        #expect(process.terminationStatus == 0, "scripts/services \(command) failed")
    }

    /// Restarts a server while jobs are held in flight by a gate, then proves: the held jobs
    /// were running when it went down; after it came back the same worker (its consumer
    /// reconnected) ran every job that was still queued; each job's effect was applied once.
    private func batchSurvives(restart command: String) async throws {
        let cluster = try await TestCluster.make()
        try await cluster.installSuccessLog()
        let gate = RestartGate()
        let concurrency = 8
        let worker = cluster.startWorker(registry: gate.registry(), concurrency: concurrency)
        let coordinator = cluster.startCoordinator()
        let production = try await cluster.client.createProduction(name: "restart")
        let options = JobOptions(productionID: production)
        let total = 400
        try await cluster.client.enqueue((0..<total).map { _ in try JobRequest(GateJob(), options: options) })
        try await cluster.wait(for: "a full worker's worth of jobs held in flight") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'running'") == concurrency
        }
        #expect(gate.entered == concurrency, "the running jobs are inside their handlers")
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'") == 0)

        try await services(command)
        // The database's clock once the server is back (a PostgreSQL restart breaks the pool's
        // connections: the first calls may fail until they are replaced).
        let restartedAt = try await Self.onceAnswered("the database's clock") {
            try await cluster.postgres.query("SELECT extract(epoch FROM clock_timestamp())::float8 AS t").first?.double("t") ?? 0
        }
        #expect(try await Self.onceAnswered("the succeeded count") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'")
        } == 0, "nothing finished while the server was down: the work was in flight")
        gate.open()

        try await cluster.wait(timeout: 180, for: "the whole batch after the restart") {
            (try? await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'")) == total
        }
        #expect(try await cluster.count("SELECT count(*) AS n FROM test_success_log") == total)
        #expect(try await cluster.count("SELECT count(DISTINCT job_id) AS n FROM test_success_log") == total)
        let startedAfter = try await cluster.count(
            "SELECT count(*)::int AS n FROM jobs WHERE extract(epoch FROM started_at) > $1", [restartedAt])
        #expect(startedAfter >= total - concurrency, "the jobs still queued were delivered after the restart: the consumer reconnected")
        #expect(try await cluster.count("SELECT count(DISTINCT worker_id)::int AS n FROM jobs") == 1,
                "one worker ran them all, before and after the restart (no second worker took over)")
        let progress = try await cluster.client.awaitProduction(production, timeout: 60)
        #expect(progress.state == "completed")
        try await worker.stop()
        try await coordinator.stop()
        await cluster.shutdown()
    }

    /// `body`'s value once it stops throwing (a PostgreSQL restart breaks the pool's connections
    /// until each is replaced on its next use), within `timeout` seconds.
    private static func onceAnswered<T: Sendable>(_ what: String, timeout: Double = 60,
                                                  _ body: @Sendable () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            do {
                return try await body()
            } catch {
                if ContinuousClock.now > deadline { throw TestTimeout(what: "\(what) after the restart; last error: \(error)") }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func rabbitMQRestartDuringABatch() async throws {
        try await batchSurvives(restart: "restart-rabbitmq")
    }

    @Test func postgreSQLRestartDuringABatch() async throws {
        try await batchSurvives(restart: "restart-postgres")
    }
}

/// A job kind that waits for the test's gate: what is in flight while a server restarts.
struct GateJob: JobParameters {
    static let kind = "restart-gate"
    static let queue = "restart-gate"
}

/// Holds every ``GateJob`` handler until ``open()``; counts the handlers entered.
final class RestartGate: Sendable {
    private let state = Mutex<(open: Bool, entered: Int, waiters: [CheckedContinuation<Void, Never>])>((false, 0, []))

    var entered: Int { state.withLock { $0.entered } }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// The gate kind, bounded by its job timeout (120 s) if the test never opens the gate.
    func registry() -> JobRegistry {
        let registry = JobRegistry()
        registry.register(GateJob.self, timeout: 120) { _, _ in
            await withCheckedContinuation { continuation in
                let wait = self.state.withLock { state -> Bool in
                    state.entered += 1
                    if !state.open { state.waiters.append(continuation) }
                    return !state.open
                }
                if !wait { continuation.resume() }
            }
        }
        return registry
    }
}
