import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// What reads a production's jobs in any state reaches them through an index: `jobs` keeps none
/// of all of a production's jobs since runtime migration 0019, only the partial indexes of its
/// active ones and of its final ones, so a statement that does not say which states it wants in
/// a way the planner can use reads the whole table (progress, which a waiting client asks for
/// ten times a second, among them).
@Suite("production reads: through the indexes of active and final jobs", .timeLimit(.minutes(2)))
struct ProductionReadPlanTests {
    /// Productions with jobs in every state, statistics up to date.
    private func populatedCluster() async throws -> (TestCluster, production: UUID) {
        let cluster = try await TestCluster.make()
        var productions: [UUID] = []
        for n in 0..<8 { productions.append(try await cluster.client.createProduction(name: "plan probe \(n)")) }
        try await cluster.postgres.query("""
            INSERT INTO jobs (id, kind, queue, state, production_id, stage, attempts, started_at, finished_at, publish_pending, last_error,
                              worker_id)
            SELECT gen_random_uuid(), 'noop', 'default', s.state, p.id, 'stage ' || (i % 3), 1, now(),
                   CASE WHEN s.state IN ('queued', 'running') THEN NULL ELSE now() END, false,
                   CASE WHEN s.state IN ('failed', 'dead') THEN 'boom' END, CASE WHEN s.state = 'running' THEN 'worker-a' END
            FROM unnest($1::uuid[]) AS p(id), generate_series(1, 400) AS i,
                 LATERAL (SELECT (ARRAY['succeeded', 'succeeded', 'succeeded', 'queued', 'running', 'failed', 'dead', 'cancelled'])[1 + i % 8] AS state) AS s
            """, [productions])
        try await cluster.postgres.query("ANALYZE jobs")
        return (cluster, productions[3])
    }

    @Test func everyIndexOfAProductionsJobsIsPartial() async throws {
        let cluster = try await TestCluster.make()
        let whole = try await cluster.postgres.query("""
            SELECT indexname FROM pg_indexes WHERE tablename = 'jobs' AND indexdef LIKE '%(production_id%'
              AND indexdef NOT LIKE '%state%'
            """).compactMap { $0.string("indexname") }
        #expect(whole == [], "an index that every row version of a production's job enters")
        await cluster.shutdown()
    }

    @Test(arguments: [false, true]) func aProductionsReadsUseItsIndexes(generic: Bool) async throws {
        let (cluster, production) = try await populatedCluster()
        let id = "'\(production.uuidString.lowercased())'"
        let reads: [(name: String, sql: String, types: String, arguments: String)] = [
            ("progress", "SELECT * FROM ops.production_progress WHERE id = $1", "uuid", id),
            ("stage progress", JobStore.stageProgressStatement, "uuid", id),
            ("stage counts", JobStore.stageCountsStatement, "uuid", id),
            ("failures", JobStore.failuresStatement, "uuid, int", "\(id), 50"),
            ("jobs but the succeeded", JobStore.jobsStatement(states: JobState.allCases.filter { $0 != .succeeded }),
             "uuid, text", "\(id), 'noop'"),
            ("jobs to retry", JobStore.jobsStatement(states: JobLifecycle.retryable), "uuid, text", "\(id), 'noop'"),
            ("prune candidates", "SELECT p.id FROM productions p WHERE "
                + JobStore.prunableProductionsCondition(finished: "$1", dead: "$2"), "float8, float8", "0, 0"),
            ("prune delete", JobStore.deleteProductionJobsStatement, "uuid[]", "ARRAY[\(id)]::uuid[]"),
        ]
        for read in reads {
            // With sequential scans priced out, one remains only where no index can serve.
            let indexes = try await cluster.jobIndexes(read.sql, types: read.types, arguments: read.arguments, generic: generic,
                                                       custom: ["enable_seqscan": "off"])
            #expect(!indexes.isEmpty, "\(read.name): reads no index of jobs")
            #expect(!indexes.contains("Seq Scan"), "\(read.name): \(indexes.sorted())")
            #expect(!indexes.contains { $0.hasSuffix(" whole") }, "\(read.name): \(indexes.sorted())")
        }
        await cluster.shutdown()
    }

    /// The always-true state conditions change no answer: the reads count every job.
    @Test func theStateConditionsLeaveNoJobOut() async throws {
        let (cluster, production) = try await populatedCluster()
        let progress = try await cluster.client.progress(production)
        #expect(progress.total == 400)
        #expect(progress.stages.map(\.total).reduce(0, +) == 400)
        #expect(progress.succeeded == 150 && progress.running == 50 && progress.queued == 100)
        let counts = try await cluster.postgres.withConnection { try JobStore.stageCounts(production: production, on: $0) }
        #expect(counts.map(\.total).reduce(0, +) == 400)
        let failures = try await cluster.postgres.withConnection { try JobStore.failures(production: production, limit: 1000, on: $0) }
        #expect(failures.count == 150)
        let notSucceeded = try await cluster.postgres.withConnection {
            try JobStore.jobs(production: production, kind: "noop", states: JobState.allCases.filter { $0 != .succeeded }, on: $0)
        }
        #expect(notSucceeded.count == 250)
        await cluster.shutdown()
    }
}
