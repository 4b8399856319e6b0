import Foundation
import Jobs
import RepartoTestSupport
import Testing

/// Restarts the shared servers, so CI runs this suite on its own (`scripts/test` does).
@Suite("Recovery across server restarts", .serialized, .timeLimit(.minutes(4)))
struct RestartTests {
    private func services(_ command: String) async throws {
        let process = Process()
        process.executableURL = TestEnvironment.repositoryRoot.appendingPathComponent("scripts/services")
        process.arguments = [command]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        await RepartoProcess.waitForExit(process)
        #expect(process.terminationStatus == 0, "scripts/services \(command) failed")
    }

    private func batchSurvives(restart command: String) async throws {
        let cluster = try await TestCluster.make()
        try await cluster.installSuccessLog()
        let worker = cluster.startWorker(concurrency: 8)
        let coordinator = cluster.startCoordinator()
        let production = try await cluster.client.createProduction(name: "restart")
        let options = JobOptions(productionID: production)
        let total = 1500
        try await cluster.client.enqueue((0..<total).map { _ in try JobRequest(SleepJob(seconds: 0.01), options: options) })
        try await cluster.wait(for: "the batch to be under way") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'") >= 50
        }
        try await services(command)
        try await cluster.wait(timeout: 180, for: "the whole batch after the restart") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'") == total
        }
        #expect(try await cluster.count("SELECT count(*) AS n FROM test_success_log") == total)
        #expect(try await cluster.count("SELECT count(DISTINCT job_id) AS n FROM test_success_log") == total)
        let progress = try await cluster.client.awaitProduction(production, timeout: 60)
        #expect(progress.state == "completed")
        try await worker.stop()
        try await coordinator.stop()
        await cluster.shutdown()
    }

    @Test func rabbitMQRestartDuringABatch() async throws {
        try await batchSurvives(restart: "restart-rabbitmq")
    }

    @Test func postgreSQLRestartDuringABatch() async throws {
        try await batchSurvives(restart: "restart-postgres")
    }
}
