import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// A claim clears a job's publish flag; nothing then keeps the relay awake.
@Suite("outbox relay: claimed jobs leave the outbox", .timeLimit(.minutes(2)))
struct RelayMarkTests {
    private func flags(_ id: UUID, _ cluster: TestCluster) async throws -> (pending: Bool, state: String) {
        let row = try #require(try await cluster.postgres.query("SELECT publish_pending, state FROM jobs WHERE id = $1", [id]).first)
        return (row.bool("publish_pending") == true, row.string("state") ?? "")
    }

    @Test func aClaimedJobIsNoLongerDueForPublishing() async throws {
        let cluster = try await TestCluster.make()
        let first = try await cluster.client.enqueue(NoopJob())
        let second = try await cluster.client.enqueue(NoopJob())
        // The second is delivered (say, by a standby's late publish) and claimed before any mark.
        _ = try await cluster.postgres.withTransaction { try JobStore.claim([second], workerID: "worker-a", on: $0) }
        #expect(try await flags(second, cluster) == (false, "running"))
        #expect(try await flags(first, cluster) == (true, "queued"))
        #expect(try await cluster.postgres.withConnection { try JobStore.secondsUntilNextDue(on: $0) } != nil)
        // The relay's take returns the job still waiting, not the claimed one, and clears its flag.
        #expect(try await cluster.postgres.withConnection { try JobStore.takeOutbox(limit: 10, on: $0) }.map(\.id) == [first])
        #expect(try await flags(first, cluster) == (false, "queued"))
        // Nothing is due any more: the relay has no reason to wake early.
        #expect(try await cluster.postgres.withConnection { try JobStore.secondsUntilNextDue(on: $0) } == nil)
        await cluster.shutdown()
    }

    /// What a relay took but the broker did not take (returned, or the batch failed before its
    /// confirms) is flagged again, except a job whose message did arrive and was claimed.
    @Test func jobsTheBrokerDidNotTakeAreFlaggedAgain() async throws {
        let cluster = try await TestCluster.make()
        // One transaction each: three instants, so "oldest first" is one order.
        var enqueued: [UUID] = []
        for _ in 0..<3 { enqueued.append(try await cluster.client.enqueue(NoopJob())) }
        let ids = enqueued
        let taken = try await cluster.postgres.withConnection { try JobStore.takeOutbox(limit: 10, on: $0) }
        #expect(taken.map(\.id) == ids, "taken oldest first")
        // Taken by this relay: another's take finds nothing.
        #expect(try await cluster.postgres.withConnection { try JobStore.takeOutbox(limit: 10, on: $0) }.isEmpty)
        _ = try await cluster.postgres.withTransaction { try JobStore.claim([ids[0]], workerID: "worker-a", on: $0) }
        try await cluster.postgres.withConnection { try JobStore.restorePending(ids, on: $0) }
        #expect(try await flags(ids[0], cluster) == (false, "running"))
        #expect(try await flags(ids[1], cluster) == (true, "queued"))
        #expect(try await flags(ids[2], cluster) == (true, "queued"))
        #expect(try await cluster.postgres.withConnection { try JobStore.takeOutbox(limit: 10, on: $0) }.map(\.id) == Array(ids[1...]))
        await cluster.shutdown()
    }

    @Test func aFlagLeftOnACancelledJobDoesNotKeepTheRelayAwake() async throws {
        let cluster = try await TestCluster.make()
        let id = try await cluster.client.enqueue(NoopJob())
        try await cluster.postgres.query("UPDATE jobs SET state = 'cancelled', finished_at = now() WHERE id = $1", [id])
        #expect(try await flags(id, cluster) == (true, "cancelled"))
        #expect(try await cluster.postgres.withConnection { try JobStore.secondsUntilNextDue(on: $0) } == nil)
        await cluster.shutdown()
    }
}
