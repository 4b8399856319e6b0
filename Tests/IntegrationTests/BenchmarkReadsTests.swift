import Foundation
import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// What the benchmarks read of jobs and productions, through `BenchmarkReads` (the only SQL on
/// those tables outside the Jobs module's store is none).
@Suite("benchmark reads of jobs and productions", .timeLimit(.minutes(2)))
struct BenchmarkReadsTests {
    @Test func startsOfOneKindAndAProductionsSpan() async throws {
        let cluster = try await TestCluster.make()
        let production = try await cluster.client.createProduction(name: "reads")
        let noop = try await cluster.client.enqueue(NoopJob(), options: JobOptions(productionID: production))
        let sleep = try await cluster.client.enqueue(SleepJob(seconds: 0), options: JobOptions(productionID: production))
        _ = try await cluster.postgres.query("""
            UPDATE jobs SET started_at = CASE id WHEN $1 THEN to_timestamp(100) ELSE to_timestamp(200) END, deferrals = 2, attempts = 3
            """, [noop])
        _ = try await cluster.postgres.query("""
            UPDATE productions SET created_at = to_timestamp(1000), finished_at = to_timestamp(1012.5), state = 'completed' WHERE id = $1
            """, [production])

        let all = try await BenchmarkReads.starts(production: production, on: cluster.postgres)
        #expect(all.seconds == [100, 200])
        #expect(all.deferrals == 4)
        #expect(all.extraAttempts == 4)
        let sleeps = try await BenchmarkReads.starts(production: production, kind: SleepJob.kind, on: cluster.postgres)
        #expect(sleeps.seconds == [200], "only the sleep job (\(sleep))")
        #expect(try await BenchmarkReads.productionSeconds(production, on: cluster.postgres) == 12.5)
        await cluster.shutdown()
    }

    @Test func aProductionHasActiveJobsUntilItsLastOneIsFinal() async throws {
        let cluster = try await TestCluster.make()
        let production = try await cluster.client.createProduction(name: "probe")
        #expect(try await BenchmarkReads.hasActiveJobs(production: production, on: cluster.postgres) == false)
        let first = try await cluster.client.enqueue(NoopJob(), options: JobOptions(productionID: production))
        let second = try await cluster.client.enqueue(NoopJob(), options: JobOptions(productionID: production))
        #expect(try await BenchmarkReads.hasActiveJobs(production: production, on: cluster.postgres))
        // One succeeded, the other failed and waiting for its retry: still active.
        _ = try await cluster.postgres.query("UPDATE jobs SET state = 'succeeded', finished_at = now() WHERE id = $1", [first])
        _ = try await cluster.postgres.query("UPDATE jobs SET state = 'failed', finished_at = now() WHERE id = $1", [second])
        #expect(try await BenchmarkReads.hasActiveJobs(production: production, on: cluster.postgres))
        _ = try await cluster.postgres.query("UPDATE jobs SET state = 'dead' WHERE id = $1", [second])
        #expect(try await BenchmarkReads.hasActiveJobs(production: production, on: cluster.postgres) == false)
        await cluster.shutdown()
    }
}
