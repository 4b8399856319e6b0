import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing
import Threading

/// A worker commits plain successes in one statement of their own and everything else (failures,
/// jobs under a limit, effects) in a transaction: each outcome ends as the single-transaction
/// completion would have left it.
@Suite("completions: plain successes alone, the rest in a transaction", .timeLimit(.minutes(2)))
struct SuccessCompletionTests {
    /// A job enqueued, then set running attempt 1 on worker `w`.
    private func running(_ cluster: TestCluster, limit: String? = nil) async throws -> UUID {
        let id = try await cluster.client.enqueue(NoopJob(), options: JobOptions(limit: limit))
        try await cluster.postgres.query("""
            UPDATE jobs SET state = 'running', attempts = 1, worker_id = 'w', publish_pending = false, started_at = now()
            WHERE id = $1
            """, [id])
        return id
    }

    private func row(_ id: UUID, in cluster: TestCluster) async throws -> PostgresRow? {
        try await cluster.postgres.query("""
            SELECT state, publish_pending, run_after <= now() AS due, finished_at IS NOT NULL AS finished FROM jobs WHERE id = $1
            """, [id]).first
    }

    @Test func aMixedBatchEndsAsOneTransactionWouldHaveLeftIt() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.client.setLimit(LimitSpec(name: "test:one", concurrency: 1))
        let plain = try await running(cluster)
        let limited = try await running(cluster, limit: "test:one")
        let stale = try await running(cluster)
        let failing = try await running(cluster)
        // Waits for test:one's slot: published again once the limited job's completion frees it.
        let waiting = try await cluster.client.enqueue(NoopJob(), options: JobOptions(limit: "test:one"))
        try await cluster.postgres.query("UPDATE jobs SET run_after = now() + interval '1 hour' WHERE id = $1", [waiting])

        let storage = PostgresWorkerStorage(postgres: cluster.postgres)
        let applied = try await storage.complete([
            JobOutcome(id: plain, attempt: 1, state: .succeeded, result: Data(#"{"n":1}"#.utf8)),
            JobOutcome(id: limited, attempt: 1, state: .succeeded),
            JobOutcome(id: stale, attempt: 2, state: .succeeded),
            JobOutcome(id: failing, attempt: 1, state: .failed, error: "boom", retryDelay: 0),
        ])
        #expect(Set(applied.map(\.id)) == [plain, limited, failing], "all but the stale attempt apply")
        #expect(applied.first { $0.id == failing }?.state == .failed)

        #expect(try await row(plain, in: cluster)?.string("state") == "succeeded")
        #expect(try await cluster.postgres.query("SELECT result ->> 'n' AS n FROM jobs WHERE id = $1", [plain]).first?.string("n") == "1",
                "the success's result is stored")
        #expect(try await row(limited, in: cluster)?.string("state") == "succeeded")
        #expect(try await row(stale, in: cluster)?.string("state") == "running", "fenced out: another attempt runs it")
        let failed = try await row(failing, in: cluster)
        #expect(failed?.string("state") == "failed")
        #expect(failed?.bool("publish_pending") == true, "flagged for the relay to publish its retry")
        #expect(try await row(waiting, in: cluster)?.bool("due") == true,
                "the limited job's completion settled its limit: the job waiting for the slot is due")

        try await storage.markStopped(workerID: "w", succeeded: 2, failed: 1)
        await cluster.shutdown()
    }

    /// The completion thread's commit (``PostgresWorkerStorage/completeOnThread(_:)``) finishes the
    /// plain successes it can alone and returns only those: a job under a limit and a fenced-out
    /// attempt are left, unchanged, for the worker's transaction.
    @Test func aCommitOnTheCompletionThreadLeavesLimitedAndFencedOutJobs() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.client.setLimit(LimitSpec(name: "test:one", concurrency: 1))
        let plain = try await running(cluster)
        let limited = try await running(cluster, limit: "test:one")
        let stale = try await running(cluster)
        let storage = PostgresWorkerStorage(postgres: cluster.postgres)
        let outcomes = [JobOutcome(id: plain, attempt: 1, state: .succeeded), JobOutcome(id: limited, attempt: 1, state: .succeeded),
                        JobOutcome(id: stale, attempt: 2, state: .succeeded)]
        let applied = try await BlockingWork.run { try storage.completeOnThread(outcomes) }
        #expect(applied?.map(\.id) == [plain])
        #expect(try await row(plain, in: cluster)?.string("state") == "succeeded")
        #expect(try await row(plain, in: cluster)?.bool("finished") == true)
        #expect(try await row(limited, in: cluster)?.string("state") == "running", "left to the transaction that settles its limit")
        #expect(try await row(stale, in: cluster)?.string("state") == "running", "fenced out: another attempt runs it")
        try await storage.markStopped(workerID: "w", succeeded: 1, failed: 0)
        await cluster.shutdown()
    }

    /// The one-statement completion keeps the fencing of ``JobLifecycle/complete(state:attempts:outcome:attempt:rescheduled:)``
    /// in every state: only the running attempt it names is finished.
    @Test func aSuccessAloneIsFencedLikeAnyCompletion() async throws {
        let cluster = try await TestCluster.make()
        for state in JobState.allCases {
            for attempt in [1, 2] {
                let id = try await cluster.client.enqueue(NoopJob())
                try await cluster.postgres.query("""
                    UPDATE jobs SET state = $2, attempts = 2, worker_id = CASE WHEN $2 = 'running' THEN 'w' END WHERE id = $1
                    """, [id, state.rawValue])
                let applied = try await cluster.postgres.withConnection { connection in
                    try JobStore.completeSucceeded([JobOutcome(id: id, attempt: attempt, state: .succeeded)], on: connection)
                }.applied
                let expected = JobLifecycle.complete(state: state, attempts: 2, outcome: .succeeded, attempt: attempt)
                let context = "\(state), attempt \(attempt)"
                #expect(applied.map(\.id) == (expected == nil ? [] : [id]), "\(context)")
                #expect(try await row(id, in: cluster)?.string("state") == (expected?.state ?? state).rawValue, "\(context)")
            }
        }
        await cluster.shutdown()
    }

    /// A worker readies its claims' and completions' connections before it consumes: each has
    /// run its statement (planned, tables read), on no job.
    @Test func preparingAWorkersConnectionsRunsTheirStatementsOnNoJob() async throws {
        let cluster = try await TestCluster.make()
        let queued = try await cluster.client.enqueue(NoopJob())
        let started = try await running(cluster)
        func backends() async throws -> [String] {
            try await cluster.postgres.query("""
                SELECT query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                """).compactMap { $0.string("query") }
        }
        func counted() async throws -> Int? {
            try await cluster.postgres.query("SELECT count(*)::int AS n FROM job_stats_delta").first?.int("n")
        }
        let before = try await backends()
        let deltas = try await counted()

        let storage = PostgresWorkerStorage(postgres: cluster.postgres)
        try await storage.prepare(workerID: "w")

        let after = try await backends()
        #expect(after.count == before.count + 3, "the claims' two and the completions' connections are open")
        #expect(after.filter { $0.contains("SET state = 'running'") && $0.contains("RETURNING") }.count == 2,
                "both claims' connections (in a task, on arrival) ran the claim")
        #expect(after.contains { $0.contains("state = u.state") }, "the completions' connection ran the completion: \(after)")
        #expect(try await row(queued, in: cluster)?.string("state") == "queued", "no job claimed")
        #expect(try await row(started, in: cluster)?.string("state") == "running", "no job completed")
        #expect(try await counted() == deltas, "nothing counted in the rollups")

        let claimed = try await BlockingWork.run { try storage.claimOnArrival([queued], workerID: "w") }
        #expect(claimed?.claimed.map(\.id) == [queued], "the prepared claim claims on arrival")
        #expect(try await row(queued, in: cluster)?.string("state") == "running")
        try await storage.markStopped(workerID: "w", succeeded: 0, failed: 0)
        await cluster.shutdown()
    }
}
