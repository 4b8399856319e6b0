import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// The deliveries workers hold unclaimed, as their heartbeats report them: what the leading
/// relay adds to a queue's ready messages before it takes published jobs for lost.
@Suite("held deliveries in the workers' heartbeats", .timeLimit(.minutes(2)))
struct HeldDeliveriesTests {
    @Test func liveWorkersHeldDeliveriesAddUpPerRoutingKey() async throws {
        let cluster = try await TestCluster.make()
        let a = WorkerIdentity(queues: ["default", "parse"], concurrency: 4, heartbeatInterval: 2)
        let b = WorkerIdentity(queues: ["default"], concurrency: 4, heartbeatInterval: 2)
        let stale = WorkerIdentity(queues: ["default"], concurrency: 4, heartbeatInterval: 2)
        let stopped = WorkerIdentity(queues: ["default"], concurrency: 4, heartbeatInterval: 2)
        try await cluster.postgres.withConnection { connection in
            _ = try JobStore.heartbeat(a, succeeded: 0, failed: 0, inFlight: 4, local: [], held: ["default": 2, "parse": 1], on: connection)
            _ = try JobStore.heartbeat(b, succeeded: 0, failed: 0, inFlight: 4, local: [], held: ["default": 3], on: connection)
            _ = try JobStore.heartbeat(stale, succeeded: 0, failed: 0, inFlight: 4, local: [], held: ["default": 100], on: connection)
            _ = try JobStore.heartbeat(stopped, succeeded: 0, failed: 0, inFlight: 4, local: [], held: ["default": 50], on: connection)
            try JobStore.markStopped(workerID: stopped.id, succeeded: 0, failed: 0, on: connection)
        }
        // Three missed heartbeats: no longer alive, and what it held went back to the broker.
        try await cluster.postgres.query("UPDATE workers SET heartbeat_at = now() - interval '1 minute' WHERE id = $1", [stale.id])
        let held = { (key: String) in
            try await cluster.postgres.withConnection { try JobStore.heldDeliveries(routingKey: key, on: $0) }
        }
        #expect(try await held("default") == 5)
        #expect(try await held("parse") == 1)
        #expect(try await held("other") == 0)
        await cluster.shutdown()
    }
}
