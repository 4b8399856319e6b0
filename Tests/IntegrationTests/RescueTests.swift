import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

@Suite("rescue of jobs whose worker looks dead", .timeLimit(.minutes(2)))
struct RescueTests {
    /// A coordinator can take a late heartbeat for a dead worker. The rescue then ends the rows
    /// (a cancel-requested job as cancelled, never to run again), and the worker, still alive,
    /// stops the handlers of the jobs it no longer owns at its next heartbeat.
    @Test func aRescuedJobIsCancelledIfItsCancelWasRequestedAndTheStalledWorkerStopsIt() async throws {
        let cluster = try await TestCluster.make()
        let worker = cluster.startWorker()
        let id = try await cluster.client.enqueue(SleepJob(seconds: 60))
        try await cluster.wait(for: "the job to run") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'running'") == 1
        }
        try await cluster.wait(for: "the worker to report it in flight") {
            try await cluster.count("SELECT coalesce(sum(in_flight), 0)::int AS n FROM workers") == 1
        }
        let rescued = try await cluster.postgres.withTransaction { connection -> Int in
            try connection.query("UPDATE jobs SET cancel_requested = true WHERE id = $1", [id])
            try connection.query("UPDATE workers SET heartbeat_at = now() - interval '1 hour'")  // a late heartbeat
            return try JobStore.rescueOrphans(on: connection)
        }
        #expect(rescued == 1)
        let row = try #require(try await cluster.postgres.query(
            "SELECT state, publish_pending, last_error FROM jobs WHERE id = $1", [id]).first)
        #expect(row.string("state") == "cancelled")
        #expect(row.bool("publish_pending") == false, "a cancelled job is not published again")
        #expect(row.string("last_error")?.contains("stopped heartbeating") == true)

        // Without the worker noticing, the 60 s sleep would hold its slot (and in_flight) on.
        try await cluster.wait(timeout: 30, for: "the worker to stop the handler it lost") {
            try await cluster.count("SELECT coalesce(sum(in_flight), 0)::int AS n FROM workers") == 0
        }
        #expect(try await cluster.client.job(id).state == .cancelled)
        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func aRescuedJobWithoutACancelRequestRunsAgain() async throws {
        let cluster = try await TestCluster.make()
        let id = try await cluster.client.enqueue(SleepJob(seconds: 0))
        let rescued = try await cluster.postgres.withTransaction { connection -> Int in
            // Running on a worker that never heartbeated (gone): as a kill -9 leaves it.
            try connection.query("UPDATE jobs SET state = 'running', attempts = 1, worker_id = 'gone' WHERE id = $1", [id])
            return try JobStore.rescueOrphans(on: connection)
        }
        #expect(rescued == 1)
        let row = try #require(try await cluster.postgres.query("SELECT state, publish_pending FROM jobs WHERE id = $1", [id]).first)
        #expect(row.string("state") == "failed")
        #expect(row.bool("publish_pending") == true)
        await cluster.shutdown()
    }
}
