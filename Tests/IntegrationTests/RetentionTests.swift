import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// Rows are aged by moving their timestamps back (no sleeping).
@Suite("Retention: pruning finished work against PostgreSQL", .timeLimit(.minutes(2)))
struct RetentionTests {
    let day = 86_400.0

    /// A standalone noop job in `state`, finished `age` seconds ago (nil: not finished).
    func job(_ state: JobState, age: Double?, in cluster: TestCluster, production: UUID? = nil) async throws -> UUID {
        let id = try await cluster.client.enqueue(NoopJob(), options: JobOptions(productionID: production))
        _ = try await cluster.postgres.query("""
            UPDATE jobs SET state = $2, publish_pending = false,
                worker_id = CASE WHEN $2 = 'running' THEN 'retention-test-worker' END,
                finished_at = CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() - make_interval(secs => $3::float8) END
            WHERE id = $1
            """, [id, state.rawValue, age])
        return id
    }

    func exists(_ table: String, _ id: UUID, in cluster: TestCluster) async throws -> Bool {
        try await cluster.count("SELECT count(*)::int AS n FROM \(table) WHERE id = $1", [id]) == 1
    }

    func worker(_ id: String, stoppedAgo: Double?, heartbeatAgo: Double, in cluster: TestCluster) async throws {
        _ = try await cluster.postgres.query("""
            INSERT INTO workers (id, host, pid, queues, concurrency, heartbeat_interval_ms, heartbeat_at, stopped_at)
            VALUES ($1, 'test', 1, ARRAY['default'], 1, 1000, now() - make_interval(secs => $2::float8),
                    CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() - make_interval(secs => $3::float8) END)
            """, [id, heartbeatAgo, stoppedAgo])
    }

    func workerExists(_ id: String, in cluster: TestCluster) async throws -> Bool {
        try await cluster.count("SELECT count(*)::int AS n FROM workers WHERE id = $1", [id]) == 1
    }

    @Test func oldFinishedJobsGoAndEverythingElseStays() async throws {
        let cluster = try await TestCluster.make()
        let policy = RetentionPolicy(finished: 30 * day, dead: 90 * day, workers: day)
        let oldDone = try await job(.succeeded, age: 31 * day, in: cluster)
        let oldCancelled = try await job(.cancelled, age: 40 * day, in: cluster)
        let recentDone = try await job(.succeeded, age: 29 * day, in: cluster)
        let deadKept = try await job(.dead, age: 60 * day, in: cluster)
        let deadOld = try await job(.dead, age: 91 * day, in: cluster)
        let queued = try await job(.queued, age: nil, in: cluster)
        let retrying = try await job(.failed, age: 100 * day, in: cluster)
        try await worker("gone", stoppedAgo: 2 * day, heartbeatAgo: 2 * day, in: cluster)
        try await worker("stale", stoppedAgo: nil, heartbeatAgo: 3 * day, in: cluster)
        try await worker("recent", stoppedAgo: 3600, heartbeatAgo: 3600, in: cluster)
        try await worker("alive", stoppedAgo: nil, heartbeatAgo: 0, in: cluster)
        try await worker("holder", stoppedAgo: nil, heartbeatAgo: 5 * day, in: cluster)
        let held = try await job(.running, age: nil, in: cluster)
        _ = try await cluster.postgres.query("UPDATE jobs SET worker_id = 'holder' WHERE id = $1", [held])

        let dry = try await cluster.client.prune(policy, dryRun: true)
        #expect(dry == PruneReport(jobs: 3, workers: 2))
        #expect(try await exists("jobs", oldDone, in: cluster), "a dry run removes nothing")

        let report = try await cluster.client.prune(policy, batch: 2)
        #expect(report == dry, "batches of 2 remove what the dry run counted")
        for gone in [oldDone, oldCancelled, deadOld] { #expect(try await !exists("jobs", gone, in: cluster)) }
        for kept in [recentDone, deadKept, queued, retrying, held] { #expect(try await exists("jobs", kept, in: cluster)) }
        for gone in ["gone", "stale"] { #expect(try await !workerExists(gone, in: cluster)) }
        for kept in ["recent", "alive", "holder"] { #expect(try await workerExists(kept, in: cluster), "\(kept)") }
        #expect(try await cluster.client.prune(policy) == PruneReport(), "nothing left to prune")
        await cluster.shutdown()
    }

    @Test func aFinishedProductionGoesWithItsJobsAndTableReadRowsOnlyWhenAllOfItIsOld() async throws {
        let cluster = try await TestCluster.make()
        let policy = RetentionPolicy(finished: 30 * day, dead: 90 * day, workers: day)
        /// A production in `state` since `age` ago, with jobs; they are enqueued first, since
        /// enqueueing into a production reopens it.
        func production(_ state: String, age: Double, jobs: [(JobState, Double)]) async throws -> (UUID, [UUID]) {
            let id = try await cluster.client.createProduction(name: "p")
            var ids: [UUID] = []
            for (jobState, jobAge) in jobs { ids.append(try await job(jobState, age: jobAge, in: cluster, production: id)) }
            _ = try await cluster.postgres.query("""
                UPDATE productions SET state = $2, finished_at = now() - make_interval(secs => $3::float8) WHERE id = $1
                """, [id, state, age])
            _ = try await cluster.postgres.query(
                "INSERT INTO table_reads (production_id, source_path, source_name) VALUES ($1, 'uploads/x.fountain', 'x.fountain')", [id])
            return (id, ids)
        }
        let (old, oldJobs) = try await production("completed", age: 31 * day, jobs: [(.succeeded, 31 * day), (.dead, 95 * day)])
        let (young, _) = try await production("completed", age: 2 * day, jobs: [(.succeeded, 2 * day)])
        let (recentFailure, _) = try await production("completed_with_failures", age: 40 * day, jobs: [(.dead, 40 * day)])
        let (running, _) = try await production("running", age: 100 * day, jobs: [(.succeeded, 100 * day)])

        #expect(try await cluster.client.prune(policy, dryRun: true) == PruneReport(productions: 1, productionJobs: 2))
        #expect(try await cluster.client.prune(policy) == PruneReport(productions: 1, productionJobs: 2))
        #expect(try await !exists("productions", old, in: cluster))
        for id in oldJobs { #expect(try await !exists("jobs", id, in: cluster)) }
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM table_reads WHERE production_id = $1", [old]) == 0)
        for kept in [young, recentFailure, running] { #expect(try await exists("productions", kept, in: cluster)) }
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM table_reads") == 3)
        await cluster.shutdown()
    }

    /// The coordinator leader prunes on its own, with the policy it was given.
    @Test func theCoordinatorPrunesOnItsOwn() async throws {
        let cluster = try await TestCluster.make()
        let old = try await job(.succeeded, age: 2 * 3600, in: cluster)
        let recent = try await job(.succeeded, age: 60, in: cluster)
        let coordinator = RunningService(Coordinator(
            postgres: cluster.postgresConfiguration, amqp: cluster.amqp, namespace: cluster.name,
            settings: CoordinatorSettings(tick: 0.2, retention: RetentionPolicy(all: 3600), pruneInterval: 0.2),
            logger: cluster.logger), logger: cluster.logger)
        try await cluster.wait(for: "the old job to be pruned") { try await !exists("jobs", old, in: cluster) }
        try await coordinator.stop()
        #expect(try await exists("jobs", recent, in: cluster))
        await cluster.shutdown()
    }

    @Test func theCommandSaysWhatItRemovedAndRefusesBadDurations() async throws {
        let cluster = try await TestCluster.make()
        var environment = try cluster.processEnvironment()
        environment["REPARTO_RETENTION"] = "7d"
        let old = try await job(.succeeded, age: 8 * day, in: cluster)
        let week = try await job(.succeeded, age: 6 * day, in: cluster)

        let dry = try await RepartoProcess.run(["prune", "--dry-run"], environment: environment)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout == "would remove 1 job, 0 productions (with 0 jobs), 0 worker rows (kept: finished 7d, dead 90d, workers 1d)\n")
        #expect(try await exists("jobs", old, in: cluster))
        let run = try await RepartoProcess.run(["prune"], environment: environment)
        #expect(run.stdout.hasPrefix("removed 1 job,"), "\(run.stdout)\(run.stderr)")
        let olderThan = try await RepartoProcess.run(["prune", "--older-than", "5d"], environment: environment)
        #expect(olderThan.stdout.hasPrefix("removed 1 job,") && olderThan.stdout.contains("finished 5d, dead 5d, workers 5d"))
        #expect(try await !exists("jobs", week, in: cluster))

        for (arguments, variable) in [(["prune", "--older-than", "soon"], "--older-than"), (["prune"], "REPARTO_DEAD_RETENTION")] {
            var bad = environment
            bad["REPARTO_DEAD_RETENTION"] = "ninety days"
            let output = try await RepartoProcess.run(arguments, environment: bad)
            let lines = output.stderr.split(separator: "\n")
            #expect(output.status != 0)
            #expect(lines.count == 1 && lines[0].hasPrefix("Error: bad \(variable)"), "\(output.stderr)")
        }
        await cluster.shutdown()
    }
}

@Suite("Retention durations, without servers", .timeLimit(.minutes(1)))
struct RetentionPolicyTests {
    @Test func durationsAndTheirSpelling() throws {
        #expect(try RetentionPolicy.seconds("30d", setting: "x") == 2_592_000)
        #expect(try RetentionPolicy.seconds("1d12h", setting: "x") == 129_600)
        #expect(try RetentionPolicy.seconds(" 2W ", setting: "x") == 1_209_600)
        #expect(try RetentionPolicy.seconds("never", setting: "x") == .infinity)
        #expect(RetentionPolicy.text(129_600) == "1d12h")
        #expect(RetentionPolicy.text(.infinity) == "never")
        for bad in ["", "30", "d", "0s", "3 days", "-1d", "1.5d", "9999999999d"] {
            #expect(throws: RetentionError.self, "\(bad)") { try RetentionPolicy.seconds(bad, setting: "x") }
        }
    }

    @Test func theVariablesSetThePolicyAndUnsetOnesKeepTheStandard() throws {
        let policy = try RetentionPolicy(configuration: .init(environment: ["REPARTO_RETENTION": "7d", "REPARTO_WORKER_RETENTION": "never"]))
        #expect(policy == RetentionPolicy(finished: 7 * 86_400, dead: RetentionPolicy.standard.dead, workers: .infinity))
        #expect(throws: RetentionError(description: "bad REPARTO_DEAD_RETENTION 'soon': expected a duration such as 30d, 12h, 90m, 1d12h, or never")) {
            try RetentionPolicy(configuration: .init(environment: ["REPARTO_DEAD_RETENTION": "soon"]))
        }
    }
}
