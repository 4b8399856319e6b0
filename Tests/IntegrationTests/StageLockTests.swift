import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// The coordinator's lock for a stage transition (``JobStore/lockProductionForAdvance(_:stage:on:)``),
/// which every enqueue into the production waits for: taken only when the stage has no job to run.
@Suite("stage transitions: the production's lock only for a stage that looks done", .timeLimit(.minutes(2)))
struct StageLockTests {
    /// Tries to lock production `id` from a connection of its own, without waiting: false when
    /// another transaction holds the row.
    @available(*, noasync)
    private static func lockable(_ id: UUID, _ configuration: PostgresConfiguration) throws -> Bool {
        let other = try PostgresConnection.connect(configuration)
        defer { other.close() }
        return try other.transaction { connection in
            try connection.query("SELECT id FROM productions WHERE id = $1 FOR UPDATE SKIP LOCKED", [id]).count == 1
        }
    }

    /// What the lock attempt returned, and whether the production was still free to lock (from
    /// another connection) inside the same transaction.
    private func attempt(_ id: UUID, stage: String, _ cluster: TestCluster) async throws -> (snapshot: ProductionSnapshot?, free: Bool) {
        let configuration = cluster.postgres.configuration
        return try await cluster.postgres.withTransaction { connection in
            let snapshot = try JobStore.lockProductionForAdvance(id, stage: stage, on: connection)
            return (snapshot, try Self.lockable(id, configuration))
        }
    }

    @Test func aStageWithAJobToRunIsNotLockedAndAnIdleOneIs() async throws {
        let cluster = try await TestCluster.make()
        let production = try await cluster.client.createProduction(name: "fed batch", plan: "batch", stage: "main")
        let job = try await cluster.client.enqueue(NoopJob(), options: JobOptions(productionID: production))

        let busy = try await attempt(production, stage: "main", cluster)
        #expect(busy.snapshot == nil)
        #expect(busy.free, "a stage with a queued job leaves the production unlocked")

        try await cluster.postgres.query("UPDATE jobs SET state = 'dead', finished_at = now() WHERE id = $1", [job])
        let idle = try await attempt(production, stage: "main", cluster)
        #expect(idle.snapshot?.dead == 1)
        #expect(idle.snapshot?.cancelled == 0)
        #expect(!idle.free, "an idle stage's production is locked for its transition")

        let moved = try await attempt(production, stage: "review", cluster)
        #expect(moved.snapshot == nil, "a stage the production is not at")
        #expect(moved.free)
        await cluster.shutdown()
    }
}
