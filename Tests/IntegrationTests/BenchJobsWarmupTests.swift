import Foundation
import RepartoRuntime
import Testing

/// `reparto bench jobs` runs its warm-up jobs through the same producer and workers before the
/// clock starts, as the peers' benchmarks do.
@Suite("bench jobs: untimed warm-up before the measured jobs", .timeLimit(.minutes(4)))
struct BenchJobsWarmupTests {
    @Test func theWarmUpJobsAreAllFinalBeforeTheFirstMeasuredJobIsEnqueued() async throws {
        let cluster = try await TestCluster.make()
        let worker = cluster.startWorker()
        let environment = try cluster.processEnvironment()
        let output = try await RepartoProcess.run(["bench", "jobs", "--count", "30", "--rate", "300", "--warmup", "25", "--json"],
                                                  environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
        let line = try #require(output.stdout.split(separator: "\n").first { $0.hasPrefix("{") })
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(report["jobs"] as? Int == 30, "the report counts the measured jobs only: \(line)")
        #expect(report["failed"] as? Int == 0)

        let rows = try await cluster.postgres.query("""
            SELECT p.name, count(j.id) AS jobs, count(*) FILTER (WHERE j.state = 'succeeded') AS succeeded,
                   min(j.created_at) AS first_enqueued, max(j.finished_at) AS last_finished
            FROM productions p JOIN all_jobs j ON j.production_id = p.id GROUP BY p.name ORDER BY p.name
            """)
        #expect(rows.map { $0.string("name") } == ["bench 30 noop", "bench warm-up 25 noop"])
        let measured = try #require(rows.first), warmUp = try #require(rows.last)
        #expect(measured.int("jobs") == 30)
        #expect(warmUp.int("jobs") == 25)
        #expect(warmUp.int("succeeded") == 25)
        let warmUpDone = try #require(warmUp.date("last_finished")), measuredStart = try #require(measured.date("first_enqueued"))
        #expect(warmUpDone <= measuredStart, "the warm-up ended (\(warmUpDone)) before the clock started (\(measuredStart))")
        try await worker.stop()
        await cluster.shutdown()
    }

    /// Rejected before anything connects: the usage error of every `reparto` option, a line naming
    /// the option first (then the usage hint) and exit status 64.
    @Test(arguments: ["-1", "100001", "many"])
    func anOutOfRangeWarmUpIsAUsageErrorNamingTheOption(value: String) async throws {
        let output = try await RepartoProcess.run(["bench", "jobs", "--warmup", value], environment: ProcessInfo.processInfo.environment)
        #expect(output.status == 64)
        let first = output.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("Error: ") && first.contains("--warmup"), "\(output.stderr)")
        #expect(output.stdout.isEmpty)
    }
}
