import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// One outbox relay leads; the others stand by, take the lead when the leader's session ends,
/// and publish what a stalled leader leaves unpublished past their grace.
@Suite("outbox relays: one leads, the others stand by", .timeLimit(.minutes(2)))
struct RelayLeadershipTests {
    private func relay(_ cluster: TestCluster, grace: Double) -> OutboxRelay {
        OutboxRelay(postgres: cluster.postgresConfiguration, amqp: cluster.amqp, namespace: cluster.name,
                    logger: cluster.logger, standbyGrace: grace)
    }

    /// Backend pids of the sessions of this database holding the relays' leader lock.
    private func leaders(_ cluster: TestCluster) async throws -> [Int] {
        try await cluster.postgres.query("""
            SELECT pid FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = $1
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """, [OutboxRelay.lockKey(namespace: cluster.name)]).compactMap { $0.int("pid") }
    }

    private func pending(_ id: UUID, _ cluster: TestCluster) async throws -> Bool {
        try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE id = $1 AND publish_pending", [id]) == 1
    }

    @Test func aStandbyTakesTheLeadWhenTheLeaderStops() async throws {
        let cluster = try await TestCluster.make()
        // A grace longer than the test: whatever the standby publishes, it publishes as the leader.
        let first = relay(cluster, grace: 600)
        first.start()
        try await cluster.wait(for: "the first relay to lead") { try await leaders(cluster).count == 1 }
        let firstLeader = try await leaders(cluster)
        let second = relay(cluster, grace: 600)
        second.start()
        let early = try await cluster.client.enqueue(NoopJob())
        try await cluster.wait(for: "the leader to publish") { try await !pending(early, cluster) }
        #expect(try await leaders(cluster) == firstLeader, "two relays, one leader")

        await first.stop()
        try await cluster.wait(for: "the standby to take the lead") {
            let now = try await leaders(cluster)
            return now.count == 1 && now != firstLeader
        }
        let late = try await cluster.client.enqueue(NoopJob())
        try await cluster.wait(for: "the new leader to publish") { try await !pending(late, cluster) }
        await second.stop()
        await cluster.shutdown()
    }

    @Test func aStandbyPublishesWhatAStalledLeaderLeavesPastTheGrace() async throws {
        let cluster = try await TestCluster.make()
        // The "leader" is a session that holds the lock and never publishes.
        let stalled = PostgresClient(configuration: cluster.postgresConfiguration, maxConnections: 1)
        let stalledPID = try #require(try await stalled.query(
            "SELECT pg_backend_pid() AS pid, pg_try_advisory_lock($1) AS ok",
            [OutboxRelay.lockKey(namespace: cluster.name)]).first.flatMap { $0.bool("ok") == true ? $0.int("pid") : nil })
        let id = try await cluster.client.enqueue(NoopJob())
        // Not yet overdue for a standby, due for a leader.
        let (standbyShare, leaderShare) = try await cluster.postgres.withTransaction { connection in
            (try JobStore.takeOutbox(limit: 10, overdueBy: 600, on: connection).map(\.id),
             try JobStore.takeOutbox(limit: 10, overdueBy: 0, on: connection).map(\.id))
        }
        #expect(standbyShare.isEmpty)
        #expect(leaderShare == [id])

        let standby = relay(cluster, grace: 1)
        standby.start()
        try await cluster.wait(for: "the standby to publish the overdue job") { try await !pending(id, cluster) }
        #expect(try await leaders(cluster) == [stalledPID], "the stalled session still holds the lead")
        await stalled.shutdown()
        try await cluster.wait(for: "the standby to take the lead") {
            let now = try await leaders(cluster)
            return now.count == 1 && now != [stalledPID]
        }
        await standby.stop()
        await cluster.shutdown()
    }

    @Test func namespacesHaveLeadersOfTheirOwn() {
        let namespaces = ["", "a", "b", "reparto_t_1234abcd"]
        let keys = Set(namespaces.map(OutboxRelay.lockKey(namespace:)))
        let coordinators = Set(namespaces.map(Coordinator.leaderLockKey(namespace:)))
        #expect(keys.count == 4)
        #expect(coordinators.count == 4)
        #expect(keys.isDisjoint(with: coordinators))
        #expect(!keys.contains(Migrator.lockKey))
        #expect(!coordinators.contains(Migrator.lockKey))
    }
}
