import Dispatch
import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// Enqueueing into productions, one statement (``JobStore/insert(_:on:)``): a running production
/// takes jobs, a finished batch is reopened, anything else refuses them all, and the relay is
/// woken only for jobs inserted.
@Suite("enqueue: productions admit jobs in the insert's own statement", .timeLimit(.minutes(2)))
struct ProductionAdmissionTests {
    private func production(_ cluster: TestCluster, plan: String = "batch", state: String = "running",
                            stage: String = "main") async throws -> UUID {
        let id = try await cluster.client.createProduction(name: "p", plan: plan, stage: stage)
        try await cluster.postgres.query("""
            UPDATE productions SET state = $2, finished_at = CASE WHEN $2 = 'running' THEN NULL ELSE now() END WHERE id = $1
            """, [id, state])
        return id
    }

    private func state(of production: UUID, _ cluster: TestCluster) async throws -> (state: String?, finished: Bool?) {
        let row = try await cluster.postgres.query(
            "SELECT state, finished_at IS NOT NULL AS finished FROM productions WHERE id = $1", [production]).first
        return (row?.string("state"), row?.bool("finished"))
    }

    private func jobs(_ cluster: TestCluster) async throws -> Int {
        try await cluster.count("SELECT count(*)::int AS n FROM jobs")
    }

    @Test func aFinishedBatchIsReopenedAndTakesTheJobs() async throws {
        let cluster = try await TestCluster.make()
        let running = try await production(cluster)
        let finished = try await production(cluster, state: "completed_with_failures")
        let ids = try await cluster.client.enqueue([
            try JobRequest(NoopJob(), options: JobOptions(productionID: running)),
            try JobRequest(NoopJob(), options: JobOptions(productionID: finished)),
        ])
        #expect(ids.count == 2)
        #expect(try await jobs(cluster) == 2)
        #expect(try await state(of: finished, cluster) == ("running", false), "reopened")
        #expect(try await state(of: running, cluster) == ("running", false))
        await cluster.shutdown()
    }

    @Test func oneProductionThatTakesNoJobsRefusesTheWholeEnqueue() async throws {
        let cluster = try await TestCluster.make()
        let finishedBatch = try await production(cluster, state: "completed")
        for (plan, refusing) in [("batch", "cancelled"), ("table-read", "completed"), ("table-read", "completed_with_failures")] {
            let other = try await production(cluster, plan: plan, state: refusing)
            await #expect(throws: RepartoError.invalidState("production \(other.uuidString.lowercased()) is \(refusing); it takes no new jobs")) {
                try await cluster.client.enqueue([
                    try JobRequest(NoopJob(), options: JobOptions(productionID: finishedBatch)),
                    try JobRequest(NoopJob(), options: JobOptions(productionID: other)),
                ])
            }
            #expect(try await jobs(cluster) == 0, "\(plan) \(refusing): nothing inserted")
            #expect(try await state(of: finishedBatch, cluster) == ("completed", true), "\(plan) \(refusing): nothing reopened")
        }
        let missing = UUID()
        await #expect(throws: RepartoError.notFound(what: "production", id: missing.uuidString.lowercased())) {
            try await cluster.client.enqueue([
                try JobRequest(NoopJob(), options: JobOptions(productionID: finishedBatch)),
                try JobRequest(NoopJob(), options: JobOptions(productionID: missing)),
            ])
        }
        #expect(try await jobs(cluster) == 0)
        #expect(try await state(of: finishedBatch, cluster) == ("completed", true))
        await cluster.shutdown()
    }

    /// Inside a caller's transaction the refusal rolls back what the caller did before it.
    @Test func aRefusalInsideTheCallersTransactionRollsItBack() async throws {
        let cluster = try await TestCluster.make()
        let cancelled = try await production(cluster, state: "cancelled")
        await #expect(throws: RepartoError.self) {
            try await cluster.postgres.withTransaction { connection in
                _ = try JobClient.enqueue([try JobRequest(NoopJob())], in: connection)
                _ = try JobClient.enqueue([try JobRequest(NoopJob(), options: JobOptions(productionID: cancelled))], in: connection)
            }
        }
        #expect(try await jobs(cluster) == 0)
        await cluster.shutdown()
    }

    /// A job without a stage joins its production's stage as it is once the production's lock is
    /// had: a coordinator that moved the stage while the enqueue waited for that lock wins.
    @Test func aJobWithoutAStageJoinsTheStageCurrentWhenTheLockIsHad() async throws {
        let cluster = try await TestCluster.make()
        let id = try await production(cluster, plan: "pipeline", stage: "one")
        let locked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Task {
            try await cluster.postgres.withTransaction { connection in
                try connection.query("SELECT 1 FROM productions WHERE id = $1 FOR UPDATE", [id])
                try connection.query("UPDATE productions SET stage = 'two' WHERE id = $1", [id])
                locked.signal()
                // A connection's own thread, not Swift's pool: it may wait (with a deadline).
                _ = release.wait(timeout: .now() + 60)
            }
        }
        defer { release.signal() }
        try await cluster.wait(for: "the holder's lock") { locked.wait(timeout: .now()) == .success }
        let enqueue = Task {
            try await cluster.client.enqueue([
                try JobRequest(NoopJob(), options: JobOptions(productionID: id)),
                try JobRequest(NoopJob(), options: JobOptions(productionID: id, stage: "own")),
            ])
        }
        try await cluster.wait(for: "the enqueue to wait for the production's lock") {
            try await cluster.count("""
                SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO jobs%'
                """) == 1
        }
        release.signal()
        try await holder.value
        let ids = try await enqueue.value
        let stages = try await cluster.postgres.query("SELECT id, stage FROM jobs").reduce(into: [UUID: String]()) {
            if let job = $1.uuid("id") { $0[job] = $1.string("stage") }
        }
        #expect(stages == [ids[0]: "two", ids[1]: "own"])
        await cluster.shutdown()
    }

    @Test func theRelayIsWokenForJobsInserted() async throws {
        let cluster = try await TestCluster.make()
        let listener = PostgresClient(configuration: cluster.postgresConfiguration, maxConnections: 1)
        try await listener.withConnection { try $0.listen(JobStore.outboxChannel) }
        let key = JobOptions(idempotencyKey: "once")
        let first = try await cluster.client.enqueue(NoopJob(), options: key)
        let woken = try await listener.withConnection { connection -> [PostgresNotification] in
            var received: [PostgresNotification] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while received.isEmpty && ContinuousClock.now < deadline {
                received = try connection.waitForNotifications(timeout: 1)
            }
            return received
        }
        #expect(woken.map(\.channel) == [JobStore.outboxChannel], "one wake-up per transaction")
        #expect(try await cluster.client.enqueue(NoopJob(), options: key) == first, "the key's job, not a new one")
        #expect(try await jobs(cluster) == 1)
        await listener.shutdown()
        await cluster.shutdown()
    }
}
