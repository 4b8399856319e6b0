import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// Hot jobs and history (migration 0010): archiving, lookups and retries across it, retention by
/// whole days, and the rollups the ops views read, checked against a count of every job.
/// Rows are aged by moving their timestamps back (no sleeping).
@Suite("Job history and rollups against PostgreSQL", .timeLimit(.minutes(3)))
struct JobHistoryTests {
    let day = 86_400.0

    /// A job of `kind` in `state`, finished `age` seconds ago (nil: not finished), in `production`.
    func job(_ state: JobState, age: Double?, in cluster: TestCluster, production: UUID? = nil, failing: Bool = false,
             key: String? = nil) async throws -> UUID {
        let options = JobOptions(idempotencyKey: key, productionID: production)
        let request = failing ? try JobRequest(FailJob(message: "planned", permanent: true), options: options)
                              : try JobRequest(NoopJob(), options: options)
        let id = try await cluster.client.enqueue([request])[0]
        // Through `running` first, as the runtime goes: the rollups count transitions.
        _ = try await cluster.postgres.query("""
            UPDATE jobs SET state = 'running', publish_pending = false, worker_id = 'history-test', started_at = now() WHERE id = $1
            """, [id])
        guard state != .running else { return id }
        _ = try await cluster.postgres.query("""
            UPDATE jobs SET state = $2, worker_id = NULL,
                started_at = CASE WHEN $3::float8 IS NULL THEN started_at ELSE now() - make_interval(secs => $3::float8 + 0.02) END,
                finished_at = CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() - make_interval(secs => $3::float8) END
            WHERE id = $1
            """, [id, state.rawValue, age])
        return id
    }

    func archive(_ cluster: TestCluster, olderThan seconds: Double) async throws -> Int {
        try await cluster.postgres.withConnection { try JobStore.archiveBatch(olderThan: seconds, on: $0) }
    }

    func fold(_ cluster: TestCluster) async throws {
        _ = try await cluster.postgres.withConnection { try JobStore.foldStats(on: $0) }
    }

    func inTable(_ table: String, _ id: UUID, _ cluster: TestCluster) async throws -> Bool {
        try await cluster.count("SELECT count(*)::int AS n FROM \(table) WHERE id = $1", [id]) == 1
    }

    /// Final-state counts by kind from the rollups (`ops.queue_overview`) and from every job.
    func totals(_ cluster: TestCluster) async throws -> (rollup: [String: [Int]], truth: [String: [Int]]) {
        var rollup: [String: [Int]] = [:], truth: [String: [Int]] = [:]
        for row in try await cluster.postgres.query("SELECT kind, succeeded::int, dead::int, cancelled::int, queued::int FROM ops.queue_overview") {
            rollup[row.string("kind") ?? ""] = [row.int("succeeded") ?? -1, row.int("dead") ?? -1, row.int("cancelled") ?? -1, row.int("queued") ?? -1]
        }
        for row in try await cluster.postgres.query("""
            SELECT kind, count(*) FILTER (WHERE state = 'succeeded')::int AS succeeded, count(*) FILTER (WHERE state = 'dead')::int AS dead,
                   count(*) FILTER (WHERE state = 'cancelled')::int AS cancelled, count(*) FILTER (WHERE state = 'queued')::int AS queued
            FROM all_jobs GROUP BY kind
            """) {
            truth[row.string("kind") ?? ""] = [row.int("succeeded") ?? -1, row.int("dead") ?? -1, row.int("cancelled") ?? -1, row.int("queued") ?? -1]
        }
        return (rollup, truth)
    }

    @Test func finishedWorkMovesToHistoryAndStaysVisible() async throws {
        let cluster = try await TestCluster.make()
        let old = 7200.0
        let done = try await job(.succeeded, age: old, in: cluster)
        let dead = try await job(.dead, age: old, in: cluster)
        let cancelled = try await job(.cancelled, age: old, in: cluster)
        let young = try await job(.succeeded, age: 10, in: cluster)
        let queued = try await job(.queued, age: nil, in: cluster)
        let retrying = try await job(.failed, age: old, in: cluster)
        let finishedProduction = try await cluster.client.createProduction(name: "finished")
        var finishedJobs: [UUID] = []
        for _ in 0..<3 { finishedJobs.append(try await job(.succeeded, age: old, in: cluster, production: finishedProduction)) }
        finishedJobs.append(try await job(.dead, age: old, in: cluster, production: finishedProduction))
        _ = try await cluster.postgres.query("UPDATE productions SET state = 'completed_with_failures', finished_at = now() WHERE id = $1",
                                             [finishedProduction])
        let runningProduction = try await cluster.client.createProduction(name: "running")
        let runningDone = try await job(.succeeded, age: old, in: cluster, production: runningProduction)
        let progressBefore = try await cluster.client.progress(finishedProduction)
        let before = try await totals(cluster)
        #expect(before.rollup == before.truth, "the rollups count what the jobs say")

        #expect(try await archive(cluster, olderThan: 3600) == 7)
        for id in [done, dead, cancelled] + finishedJobs {
            #expect(try await !inTable("jobs", id, cluster))
            #expect(try await inTable("job_history", id, cluster))
        }
        for id in [young, queued, retrying, runningDone] { #expect(try await inTable("jobs", id, cluster), "\(id) stays hot") }
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM job_history_dead") == 2, "dead jobs have their own partitions")
        #expect(try await archive(cluster, olderThan: 3600) == 0, "nothing is moved twice")

        // Everything reads the same as before the move.
        #expect(try await cluster.client.job(done).state == .succeeded)
        #expect(try await cluster.client.job(dead).state == .dead)
        let progressAfter = try await cluster.client.progress(finishedProduction)
        #expect(progressAfter.total == progressBefore.total && progressAfter.succeeded == 3 && progressAfter.failed == 1)
        #expect(progressAfter.stages.map(\.total) == progressBefore.stages.map(\.total))
        try await fold(cluster)
        let after = try await totals(cluster)
        #expect(after.rollup == after.truth && after.rollup == before.rollup, "moving and folding change no count")
        await cluster.shutdown()
    }

    /// Rows the plan of `sql` (run with `EXPLAIN ANALYZE` under the archive's settings, its locks
    /// rolled back) read from `jobs` and its indexes: every node's rows returned and removed by a
    /// filter, times its loops.
    func jobRowsRead(_ sql: String, _ arguments: [any PostgresEncodable & Sendable], in cluster: TestCluster) async throws -> Int {
        try await cluster.postgres.withConnection { connection in
            try connection.execute("BEGIN")
            defer { try? connection.execute("ROLLBACK") }
            try connection.execute("SET LOCAL reparto.all_namespaces = 'on'")
            try connection.execute(JobStore.setArchiveLookSettings)
            let plan = try connection.query("EXPLAIN (ANALYZE, FORMAT JSON) \(sql)", arguments).first?.string("QUERY PLAN") ?? ""
            var read = 0
            func walk(_ node: Any) {
                if let object = node as? [String: Any] {
                    let onJobs = object["Relation Name"] as? String == "jobs" || (object["Index Name"] as? String)?.hasPrefix("jobs_") == true
                    if onJobs, let loops = object["Actual Loops"] as? Int {
                        let returned = object["Actual Rows"] as? Int ?? 0
                        let removed = (object["Rows Removed by Filter"] as? Int ?? 0) + (object["Rows Removed by Index Recheck"] as? Int ?? 0)
                        read += (returned + removed) * loops
                    }
                    object.values.forEach(walk)
                } else if let array = node as? [Any] {
                    array.forEach(walk)
                }
            }
            walk(try JSONSerialization.jsonObject(with: Data(plan.utf8)))
            return read
        }
    }

    /// A production that runs for hours keeps its finished jobs in `jobs`; the archive's looks,
    /// once a tick, step over them instead of reading them all again each time: with statistics
    /// that know the table, and with those of a table vacuumed empty just before it filled.
    @Test(arguments: [false, true]) func theArchiveReadsNoneOfARunningProductionsFinishedJobs(emptiedStatistics: Bool) async throws {
        let cluster = try await TestCluster.make()
        let running = try await cluster.client.createProduction(name: "long run")
        let finished = try await cluster.client.createProduction(name: "done")
        if emptiedStatistics { try await cluster.postgres.query("VACUUM ANALYZE jobs") }
        let many = 2_000
        // Older than anything else, so an oldest-first walk of every finished job meets them first.
        try await cluster.postgres.query("""
            INSERT INTO jobs (id, kind, queue, state, production_id, stage, attempts, started_at, finished_at, publish_pending)
            SELECT gen_random_uuid(), 'noop', 'default', 'succeeded', $1, 'main', 1, now() - interval '3 hours',
                   now() - interval '2 hours' - g * interval '1 ms', false FROM generate_series(1, \(many)) g
            """, [running])
        var movable: [UUID] = []
        for _ in 0..<3 { movable.append(try await job(.succeeded, age: 3600, in: cluster, production: finished)) }
        movable.append(try await job(.dead, age: 3600, in: cluster, production: finished))
        _ = try await cluster.postgres.query("UPDATE productions SET state = 'completed_with_failures', finished_at = now() WHERE id = $1",
                                             [finished])
        for _ in 0..<2 { movable.append(try await job(.succeeded, age: 3600, in: cluster)) }
        if !emptiedStatistics { try await cluster.postgres.query("ANALYZE jobs") }

        let arguments: [any PostgresEncodable & Sendable] = [600.0, Int32(JobStore.historyBatch)]
        let standalone = try await jobRowsRead(JobStore.archivableStandaloneStatement, arguments, in: cluster)
        let ofProductions = try await jobRowsRead(JobStore.archivableProductionJobsStatement, arguments, in: cluster)
        // What each look may move (and the entries its earlier row versions left in an index),
        // and a step per production: nothing like the running production's 2,000.
        #expect(standalone < 100, "the standalone look read \(standalone) rows")
        #expect(ofProductions < 100, "the productions' look read \(ofProductions) rows")

        #expect(try await archive(cluster, olderThan: 600) == movable.count)
        for id in movable { #expect(try await inTable("job_history", id, cluster)) }
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE production_id = $1", [running]) == many)
        await cluster.shutdown()
    }

    @Test func aRetryBringsArchivedWorkBackAndItRuns() async throws {
        let cluster = try await TestCluster.make()
        let dead = try await job(.dead, age: 7200, in: cluster, failing: true)
        let production = try await cluster.client.createProduction(name: "p")
        let lineDone = try await job(.succeeded, age: 7200, in: cluster, production: production)
        let lineDead = try await job(.dead, age: 7200, in: cluster, production: production)
        _ = try await cluster.postgres.query("UPDATE productions SET state = 'completed_with_failures', finished_at = now() WHERE id = $1",
                                             [production])
        #expect(try await archive(cluster, olderThan: 3600) == 3)

        #expect(try await cluster.client.retry(dead) == 1)
        #expect(try await inTable("jobs", dead, cluster))
        #expect(try await !inTable("job_history", dead, cluster))
        #expect(try await cluster.client.job(dead).state == .queued)

        #expect(try await cluster.client.retry(production) == 1, "only the dead line runs again")
        #expect(try await inTable("jobs", lineDone, cluster))
        #expect(try await inTable("jobs", lineDead, cluster))
        #expect(try await cluster.count("SELECT archived_total::int AS n FROM productions WHERE id = $1", [production]) == 0)
        let progress = try await cluster.client.progress(production)
        #expect(progress.total == 2 && progress.succeeded == 1 && progress.queued == 1)
        try await fold(cluster)
        let counts = try await totals(cluster)
        #expect(counts.rollup == counts.truth, "a retry takes its jobs out of the dead count")

        // The queued job really runs: the relay publishes it and a worker finishes it.
        let coordinator = cluster.startCoordinator()
        let worker = cluster.startWorker()
        let ran = try await cluster.client.awaitJob(lineDead, timeout: 60)
        #expect(ran.state == .succeeded)
        try await worker.stop()
        try await coordinator.stop()
        await cluster.shutdown()
    }

    @Test func anIdempotencyKeyHoldsAcrossTheMove() async throws {
        let cluster = try await TestCluster.make()
        let first = try await job(.succeeded, age: 7200, in: cluster, key: "import-42")
        #expect(try await archive(cluster, olderThan: 3600) == 1)
        let again = try await cluster.client.enqueue(NoopJob(), options: JobOptions(idempotencyKey: "import-42"))
        #expect(again == first, "the archived job holds its key")
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM all_jobs WHERE idempotency_key = 'import-42'") == 1)
        await cluster.shutdown()
    }

    @Test func retentionDropsWholeDaysAndKeepsOtherNamespacesRows() async throws {
        let cluster = try await TestCluster.make()
        let oldDone = try await job(.succeeded, age: 40 * day, in: cluster)
        let oldCancelled = try await job(.cancelled, age: 40 * day, in: cluster)
        let sharedDayDone = try await job(.succeeded, age: 50 * day, in: cluster)
        let recentDone = try await job(.succeeded, age: 20 * day, in: cluster)
        let deadKept = try await job(.dead, age: 40 * day, in: cluster)
        let deadOld = try await job(.dead, age: 100 * day, in: cluster)
        // Another namespace's job that finished on the same day as `sharedDayDone`, the way the runtime finishes one.
        let other = UUID()
        try await cluster.postgres.withConnection { connection in
            try connection.transaction { connection in
                try connection.query("SET LOCAL reparto.all_namespaces = 'on'")
                try connection.query("""
                    INSERT INTO jobs (id, kind, queue, namespace, state, worker_id, started_at, publish_pending)
                    VALUES ($1, 'noop', 'reparto.default', 'someone-else', 'running', 'elsewhere', now(), false)
                    """, [other])
                try connection.query("""
                    UPDATE jobs SET state = 'succeeded', worker_id = NULL, finished_at = (SELECT finished_at FROM jobs WHERE id = $2)
                    WHERE id = $1
                    """, [other, sharedDayDone])
            }
        }
        #expect(try await archive(cluster, olderThan: 3600) == 7)
        let policy = RetentionPolicy(finished: 30 * day, dead: 90 * day, workers: day)
        let dry = try await cluster.client.prune(policy, dryRun: true)
        #expect(dry.historyJobs == 4, "three old days' jobs of this namespace and the old dead one")
        #expect(try await inTable("job_history", oldDone, cluster), "a dry run removes nothing")

        let report = try await cluster.client.prune(policy)
        #expect(report.historyJobs == 4 && report.historyDays == 2, "a day of done jobs and a day of dead ones dropped whole; the shared day loses only our row")
        for gone in [oldDone, oldCancelled, sharedDayDone, deadOld] { #expect(try await !inTable("job_history", gone, cluster)) }
        for kept in [recentDone, deadKept] { #expect(try await inTable("job_history", kept, cluster)) }
        let survivors = try await cluster.postgres.withConnection { connection in
            try connection.transaction { connection in
                try connection.query("SET LOCAL reparto.all_namespaces = 'on'")
                return try connection.query("SELECT count(*)::int AS n FROM job_history WHERE id = $1", [other]).first?.int("n") ?? 0
            }
        }
        #expect(survivors == 1, "another namespace's history is not ours to prune")
        #expect(try await cluster.client.prune(policy).historyJobs == 0, "nothing left to prune")
        await cluster.shutdown()
    }

    @Test func theRollupsFollowRealWorkThroughAWorker() async throws {
        let cluster = try await TestCluster.make()
        let coordinator = cluster.startCoordinator()
        let worker = cluster.startWorker()
        var ids: [UUID] = []
        for _ in 0..<40 { ids.append(try await cluster.client.enqueue(NoopJob())) }
        for _ in 0..<5 { ids.append(try await cluster.client.enqueue(FailJob(message: "planned", permanent: true))) }
        for id in ids { _ = try await cluster.client.awaitJob(id, timeout: 60) }
        try await worker.stop()
        try await coordinator.stop()
        try await fold(cluster)
        let counts = try await totals(cluster)
        #expect(counts.rollup == counts.truth)
        #expect(counts.rollup[NoopJob.kind]?[0] == 40 && counts.rollup[FailJob.kind]?[1] == 5)
        let minutes = try await cluster.count("SELECT coalesce(sum(succeeded), 0)::int AS n FROM ops.throughput")
        #expect(minutes == 40, "per-minute throughput adds up to the jobs that succeeded")
        let p50 = try await cluster.postgres.query("SELECT p50_ms::float8 AS p FROM ops.queue_overview WHERE kind = 'noop'").first?.double("p")
        #expect(p50 != nil && p50! >= 0, "a run-time percentile from the buckets")
        await cluster.shutdown()
    }

    /// One statement moving thousands of jobs (a production's cancel, then its retry) counts each
    /// once into the rollups and out of them again. The trigger pairs old and new rows by a hash
    /// join (migration 0012); as a nested loop, such a statement cost seconds.
    @Test func aStatementMovingThousandsOfJobsCountsEachOnce() async throws {
        let cluster = try await TestCluster.make()
        let production = try await cluster.client.createProduction(name: "cancel at scale")
        _ = try await cluster.client.enqueue((0..<3000).map { _ in try JobRequest(NoopJob(), options: JobOptions(productionID: production)) })
        try await cluster.client.cancel(production)
        try await fold(cluster)
        var counts = try await totals(cluster)
        #expect(counts.rollup == counts.truth)
        #expect(counts.rollup[NoopJob.kind] == [0, 0, 3000, 0])
        #expect(try await cluster.client.retry(production) == 3000)
        try await fold(cluster)
        counts = try await totals(cluster)
        #expect(counts.rollup == counts.truth)
        #expect(counts.rollup[NoopJob.kind] == [0, 0, 0, 3000])
        await cluster.shutdown()
    }
}
