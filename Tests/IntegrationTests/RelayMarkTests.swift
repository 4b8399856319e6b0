import Foundation
@testable import Jobs
import Postgres
import RepartoTestSupport
import Testing

/// The relay locks nothing while it publishes, so a worker may claim (and even finish or put back)
/// a job before the relay marks it published. The mark must not undo what happened meanwhile.
@Suite("outbox relay: the mark after the broker's confirms", .timeLimit(.minutes(2)))
struct RelayMarkTests {
    private func flags(_ id: UUID, _ cluster: TestCluster) async throws -> (pending: Bool, state: String) {
        let row = try #require(try await cluster.postgres.query("SELECT publish_pending, state FROM jobs WHERE id = $1", [id]).first)
        return (row.bool("publish_pending") == true, row.string("state") ?? "")
    }

    @Test func aJobPutBackWhileTheRelayWaitedStaysDueForPublishing() async throws {
        let cluster = try await TestCluster.make()
        let id = try await cluster.client.enqueue(NoopJob())
        let taken = try await cluster.postgres.withConnection { try JobStore.takeOutbox(limit: 10, on: $0) }
        #expect(taken.map(\.id) == [id])
        // Meanwhile a worker claims it (which clears the flag) and its attempt fails with a retry
        // (which sets it again, to publish the retry at its time).
        let claimed = try await cluster.postgres.withTransaction { try JobStore.claim([id], workerID: "worker-a", on: $0) }
        #expect(claimed.claimed.map(\.id) == [id])
        #expect(try await flags(id, cluster) == (false, "running"))
        let outcome = JobOutcome(id: id, attempt: 1, state: .failed, error: "boom", retryDelay: 60)
        _ = try await cluster.postgres.withTransaction { try JobStore.complete([outcome], on: $0) }
        #expect(try await flags(id, cluster) == (true, "failed"))
        // The relay's mark arrives late: the retry must stay pending.
        try await cluster.postgres.withConnection { try JobStore.markPublished(taken, on: $0) }
        #expect(try await flags(id, cluster) == (true, "failed"))
        await cluster.shutdown()
    }

    @Test func anUntouchedJobIsMarkedAndAClaimNeedsNoMark() async throws {
        let cluster = try await TestCluster.make()
        let first = try await cluster.client.enqueue(NoopJob())
        let second = try await cluster.client.enqueue(NoopJob())
        let taken = try await cluster.postgres.withConnection { try JobStore.takeOutbox(limit: 10, on: $0) }
        #expect(Set(taken.map(\.id)) == [first, second])
        _ = try await cluster.postgres.withTransaction { try JobStore.claim([second], workerID: "worker-a", on: $0) }
        try await cluster.postgres.withConnection { try JobStore.markPublished(taken, on: $0) }
        #expect(try await flags(first, cluster) == (false, "queued"))
        #expect(try await flags(second, cluster) == (false, "running"))
        // Nothing is due any more: the relay has no reason to wake early.
        #expect(try await cluster.postgres.withConnection { try JobStore.secondsUntilNextDue(on: $0) } == nil)
        await cluster.shutdown()
    }
}
