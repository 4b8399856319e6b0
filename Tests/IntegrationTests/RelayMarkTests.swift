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
        try await cluster.postgres.withConnection { try JobStore.markPublished([first], on: $0) }
        // Nothing is due any more: the relay has no reason to wake early.
        #expect(try await cluster.postgres.withConnection { try JobStore.secondsUntilNextDue(on: $0) } == nil)
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
