import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// The fast-path claim and the plain successes' completion mark their statement (migration 0013):
/// the rollups' trigger returns at once for it, takes the mark back, and counts every later
/// update, in the same transaction too. The completion counts its jobs itself, once.
@Suite("rollups: a claim's and a success's mark skips their own statement only", .timeLimit(.minutes(2)))
struct ClaimRollupMarkTests {
    private func deltas(_ cluster: TestCluster) async throws -> Int {
        try await cluster.postgres.query("SELECT coalesce(sum(n), 0)::int AS n FROM job_stats_delta").first?.int("n") ?? -1
    }

    /// Sets job `id` running attempt 1 on worker `w`, as a claim would.
    private func setRunning(_ id: UUID, on connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE jobs SET state = 'running', attempts = 1, worker_id = 'w', publish_pending = false, started_at = now()
            WHERE id = $1
            """, [id])
    }

    private func succeed(_ id: UUID, on connection: PostgresConnection) throws {
        try connection.query("UPDATE jobs SET state = 'succeeded', finished_at = now() WHERE id = $1", [id])
    }

    /// The mark is the trigger's only exception, and it covers one statement: an update that
    /// finishes a job under the mark is not counted, the next one is.
    @Test func theMarkCoversOneStatement() async throws {
        let cluster = try await TestCluster.make()
        let first = try await cluster.client.enqueue(NoopJob())
        let second = try await cluster.client.enqueue(NoopJob())
        let before = try await deltas(cluster)
        let mark = try await cluster.postgres.withTransaction { connection in
            try setRunning(first, on: connection)
            try setRunning(second, on: connection)
            try connection.query("SELECT set_config('reparto.rollups', 'unchanged', true)")
            try succeed(first, on: connection)
            let mark = try connection.query("SELECT current_setting('reparto.rollups', true) AS mark").first?.string("mark")
            try succeed(second, on: connection)
            return mark
        }
        #expect(mark == "", "the trigger took the mark back")
        #expect(try await deltas(cluster) == before + 1, "only the success after the marked statement is counted")
        await cluster.shutdown()
    }

    /// A claim inside a caller's transaction leaves no mark: the completion after it, in the
    /// same transaction, is counted; the claim itself counts nothing.
    @Test func aClaimLeavesNoMarkBehind() async throws {
        let cluster = try await TestCluster.make()
        let claimed = try await cluster.client.enqueue(NoopJob())
        let finished = try await cluster.client.enqueue(NoopJob())
        let before = try await deltas(cluster)
        let (ids, mark, afterClaim) = try await cluster.postgres.withTransaction { connection in
            try setRunning(finished, on: connection)
            let counted = { try connection.query("SELECT coalesce(sum(n), 0)::int AS n FROM job_stats_delta").first?.int("n") ?? -1 }
            let ids = try JobStore.claimFast([claimed], workerID: "w", on: connection).claimed.map(\.id)
            let afterClaim = try counted()
            let mark = try connection.query("SELECT current_setting('reparto.rollups', true) AS mark").first?.string("mark")
            try succeed(finished, on: connection)
            return (ids, mark, afterClaim)
        }
        #expect(ids == [claimed], "the claim claimed")
        #expect(afterClaim == before, "a claim counts nothing")
        #expect(mark == "", "the claim's statement took its mark back")
        #expect(try await deltas(cluster) == before + 1, "the success after the claim is counted")
        await cluster.shutdown()
    }

    /// A claim that finds nothing to claim leaves no mark either.
    @Test func aClaimOfNothingLeavesNoMark() async throws {
        let cluster = try await TestCluster.make()
        let finished = try await cluster.client.enqueue(NoopJob())
        let before = try await deltas(cluster)
        let mark = try await cluster.postgres.withTransaction { connection in
            try setRunning(finished, on: connection)
            _ = try JobStore.claimFast([UUID()], workerID: "w", on: connection)
            let mark = try connection.query("SELECT current_setting('reparto.rollups', true) AS mark").first?.string("mark")
            try succeed(finished, on: connection)
            return mark
        }
        #expect(mark ?? "" == "", "no mark after a claim of nothing")
        #expect(try await deltas(cluster) == before + 1, "the success after it is counted")
        await cluster.shutdown()
    }

    /// Plain successes committed alone are counted once each, by their own statement (not by
    /// the trigger as well), with their run-time bucket; a fenced-out one is not counted.
    @Test func aSuccessAloneCountsItselfOnce() async throws {
        let cluster = try await TestCluster.make()
        let first = try await cluster.client.enqueue(NoopJob())
        let second = try await cluster.client.enqueue(NoopJob())
        let stale = try await cluster.client.enqueue(NoopJob())
        try await cluster.postgres.withTransaction { connection in
            for id in [first, second, stale] { try setRunning(id, on: connection) }
        }
        let before = try await deltas(cluster)
        let storage = PostgresWorkerStorage(postgres: cluster.postgres)
        let applied = try await storage.complete([
            JobOutcome(id: first, attempt: 1, state: .succeeded),
            JobOutcome(id: second, attempt: 1, state: .succeeded),
            JobOutcome(id: stale, attempt: 2, state: .succeeded),
        ])
        #expect(Set(applied.map(\.id)) == [first, second])
        #expect(try await deltas(cluster) == before + 2, "two successes, each counted once")
        let counted = try await cluster.postgres.query("""
            SELECT state, min(bucket)::int AS bucket, sum(n)::int AS n FROM job_stats_delta WHERE kind = 'noop' GROUP BY state
            """)
        #expect(counted.count == 1 && counted.first?.string("state") == "succeeded", "counted as successes: \(counted.count) states")
        #expect((counted.first?.int("bucket") ?? -1) >= 0, "with their run time's bucket")
        try await storage.markStopped(workerID: "w", succeeded: 2, failed: 0)
        await cluster.shutdown()
    }
}
