import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// Claims and completions reach their jobs through the primary key, however many jobs the table
/// holds: a partial index whose predicate their conditions imply (jobs_active_stage,
/// jobs_running_worker before migration 0020) let the planner scan every active or running job
/// for each batch instead.
@Suite("job statements: id-keyed through the primary key", .timeLimit(.minutes(2)))
struct ClaimPlanTests {
    /// A table like a busy cluster's: thousands of finished jobs of a production, a few waiting,
    /// a few running, statistics up to date (so the planner knows how few are active).
    private func populatedCluster() async throws -> (TestCluster, waiting: [UUID], running: [UUID]) {
        let cluster = try await TestCluster.make()
        let production = try await cluster.client.createProduction(name: "plan probe")
        try await cluster.postgres.query("""
            INSERT INTO jobs (id, kind, queue, state, production_id, stage, attempts, finished_at, publish_pending)
            SELECT gen_random_uuid(), 'noop', 'default', 'succeeded', $1, 'main', 1, now(), false FROM generate_series(1, 20000)
            """, [production])
        let waiting = try await cluster.client.enqueue((0..<16).map { _ in try JobRequest(NoopJob(), options: JobOptions(productionID: production)) })
        let running = try await cluster.client.enqueue((0..<16).map { _ in try JobRequest(NoopJob(), options: JobOptions(productionID: production)) })
        _ = try await cluster.postgres.withTransaction { try JobStore.claim(running, workerID: "worker-a", on: $0) }
        try await cluster.postgres.query("ANALYZE jobs")
        return (cluster, waiting, running)
    }

    /// `settings` as a session's `SET` statements (``jobIndexes``'s `session`).
    private func session(_ settings: KeyValuePairs<String, String>) -> String {
        settings.map { "SET \($0.key) TO \($0.value)" }.joined(separator: "; ")
    }

    private func array(_ ids: [UUID]) -> String { "'{\(ids.map { $0.uuidString.lowercased() }.joined(separator: ","))}'" }

    /// Custom plans (made for the call's ids) and the generic plan the worker runs both.
    @Test(arguments: [false, true]) func aClaimReadsItsJobsByPrimaryKey(generic: Bool) async throws {
        let (cluster, waiting, _) = try await populatedCluster()
        let indexes = try await cluster.jobIndexes(JobStore.claimStatement(limitedKinds: false), types: "uuid[], text",
                                                   arguments: "\(array(waiting)), 'worker-b'", generic: generic)
        #expect(indexes == ["jobs_pkey"])
        let limited = try await cluster.jobIndexes(JobStore.claimStatement(limitedKinds: true), types: "uuid[], text, text[], text[]",
                                                   arguments: "\(array(waiting)), 'worker-b', '{noop}', '{cpu}'", generic: generic)
        #expect(limited == ["jobs_pkey"])
        await cluster.shutdown()
    }

    @Test(arguments: [false, true]) func aCompletionReadsItsJobsByPrimaryKey(generic: Bool) async throws {
        let (cluster, _, running) = try await populatedCluster()
        let n = running.count
        func list(_ value: String) -> String { "'{\(Array(repeating: value, count: n).joined(separator: ","))}'" }
        for statement in [JobStore.completionStatement, JobStore.unlimitedCompletionStatement] {
            let indexes = try await cluster.jobIndexes(
                statement, types: "uuid[], int4[], text[], jsonb[], text[], float8[], float8[], bool[]",
                arguments: [array(running), list("1"), list("succeeded"), list("NULL"), list("NULL"), list("NULL"), list("NULL"), list("false")]
                    .joined(separator: ", "),
                generic: generic, settings: JobStore.completionPlanSettings)
            #expect(indexes == ["jobs_pkey"])
        }
        await cluster.shutdown()
    }

    /// A worker's first claims and completions may come before `jobs` holds anything or was ever
    /// analyzed (a new database), and their generic plans stay with the connection. Planned for
    /// an empty table without the worker's settings, a completion scanned every running job.
    /// Emptied and vacuumed (every finished job archived, then a quiet spell), the table is
    /// planned as holding nothing: the completion's plan, kept as the table filled again, read
    /// the whole primary key for each batch (60–100 ms a statement at 30,000 jobs, seen with
    /// `auto_explain` in a benchmark run after the archive).
    @Test(arguments: [false, true]) func anEmptyTablesGenericPlansReadByPrimaryKeyToo(vacuumed: Bool) async throws {
        let cluster = try await TestCluster.make()
        if vacuumed { try await cluster.postgres.query("VACUUM ANALYZE jobs") }
        let n = 4
        func list(_ value: String) -> String { "'{\(Array(repeating: value, count: n).joined(separator: ","))}'" }
        let ids = array((0..<n).map { _ in UUID() })
        for statement in [JobStore.completionStatement, JobStore.unlimitedCompletionStatement] {
            let completion = try await cluster.jobIndexes(
                statement, types: "uuid[], int4[], text[], jsonb[], text[], float8[], float8[], bool[]",
                arguments: [ids, list("1"), list("succeeded"), list("NULL"), list("NULL"), list("NULL"), list("NULL"), list("false")]
                    .joined(separator: ", "),
                generic: true, settings: JobStore.completionPlanSettings)
            #expect(completion == ["jobs_pkey"])
        }
        let claim = try await cluster.jobIndexes(JobStore.claimStatement(limitedKinds: false), types: "uuid[], text",
                                                 arguments: "\(ids), 'worker-b'", generic: true)
        #expect(claim == ["jobs_pkey"])
        await cluster.shutdown()
    }

    /// A heartbeat's look for its worker's cancelled and lost jobs, planned generically on an
    /// emptied, vacuumed table (the heartbeat's connection keeps the plan): through the running
    /// jobs' index and the primary key, not a scan of the table.
    @Test func aHeartbeatsLookupReadsThroughItsIndexesOnAnEmptiedTable() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.postgres.query("VACUUM ANALYZE jobs")
        let settings = session(JobStore.heartbeatLookupPlanSettings)
        let lookup = try await cluster.jobIndexes(JobStore.heartbeatLookupStatement, types: "text, uuid[]",
                                                  arguments: "'worker-a', '{\(UUID().uuidString.lowercased())}'",
                                                  session: settings)
        #expect(lookup == ["Bitmap Heap Scan", "jobs_running_worker", "jobs_pkey"])
        await cluster.shutdown()
    }

    /// The relay's statements, planned generically in its session on an empty table (its
    /// connection keeps those plans as the table fills), each through the index made for it,
    /// in a plain index scan: a bitmap scan reads every taken job's dead row version the outbox
    /// index still points to, on every pass until a vacuum.
    @Test(arguments: [false, true]) func theRelaysStatementsUseTheirIndexesOnAnEmptyTable(vacuumed: Bool) async throws {
        let cluster = try await TestCluster.make()
        if vacuumed { try await cluster.postgres.query("VACUUM ANALYZE jobs") }
        let session = OutboxRelay.sessionSettings
        let take = try await cluster.jobIndexes(JobStore.takeStatement, types: "int4, float8", arguments: "1000, 0",
                                                session: session)
        #expect(take == ["jobs_outbox", "jobs_pkey"])
        let nextDue = try await cluster.jobIndexes(JobStore.nextDueStatement, types: "int4", arguments: "0",
                                                   session: session)
        #expect(nextDue == ["jobs_outbox"])
        await cluster.shutdown()
    }

    /// A production's stage check counts, under the lock every enqueue into it waits for, only its
    /// dead and cancelled jobs, through the index made for them: not its 20,000 succeeded ones;
    /// and it looks for a job to run through the index of active jobs.
    @Test func aStageCheckUnderTheProductionsLockReadsOnlyItsEndedJobs() async throws {
        let (cluster, _, _) = try await populatedCluster()
        let production = try await cluster.postgres.query("SELECT production_id FROM jobs LIMIT 1").first?.uuid("production_id")
        let arguments = "'\(production?.uuidString.lowercased() ?? "")'"
        let expected: Set = ["jobs_production_ended", "jobs_active_stage"]
        #expect(try await cluster.jobIndexes(JobStore.stageRecheckStatement, types: "uuid", arguments: arguments) == expected)
        #expect(try await cluster.jobIndexes(JobStore.stageRecheckStatement, types: "uuid", arguments: arguments,
                                             generic: true) == expected)
        // And it counts them: one dead, one cancelled, beside the succeeded ones.
        try await cluster.postgres.query("""
            UPDATE jobs SET state = CASE WHEN n = 1 THEN 'dead' ELSE 'cancelled' END, finished_at = now()
            FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM jobs WHERE state = 'queued' LIMIT 2) AS two
            WHERE jobs.id = two.id
            """)
        let counts = try await cluster.postgres.withConnection { connection in
            try connection.query(JobStore.stageRecheckStatement, [production]).first
        }
        #expect(counts?.int("dead") == 1 && counts?.int("cancelled") == 1)
        #expect(counts?.bool("busy") == true, "queued jobs are left in the stage")
        await cluster.shutdown()
    }

    /// The coordinator's lock for a stage transition looks for a job to run through the index of
    /// active jobs, in custom and generic plans, with that index holding the earlier row versions
    /// of 20,000 jobs that ran (no vacuum since). (The plan that read all of a production's jobs
    /// instead came from statistics of a busy table this test does not reproduce; it was seen in
    /// `pg_stat_user_indexes` during a benchmark.)
    @Test func theStageLockLooksForJobsToRunThroughTheActiveIndex() async throws {
        let cluster = try await TestCluster.make()
        let production = try await cluster.client.createProduction(name: "ran", plan: "batch", stage: "main")
        try await cluster.postgres.query("ALTER TABLE jobs SET (autovacuum_enabled = false)")
        try await cluster.postgres.query("""
            INSERT INTO jobs (id, kind, queue, state, production_id, stage, attempts, publish_pending)
            SELECT gen_random_uuid(), 'noop', 'default', 'queued', $1, 'main', 0, false FROM generate_series(1, 20000)
            """, [production])
        try await cluster.postgres.query("UPDATE jobs SET state = 'running', attempts = 1, worker_id = 'w', started_at = now()")
        try await cluster.postgres.query("UPDATE jobs SET state = 'succeeded', finished_at = now()")
        try await cluster.postgres.query("ANALYZE jobs")
        let arguments = "'\(production.uuidString.lowercased())', 'main'"
        for generic in [false, true] {
            #expect(try await cluster.jobIndexes(JobStore.lockIdleStageStatement, types: "uuid, text", arguments: arguments,
                                                 generic: generic) == ["jobs_active_stage"], "generic: \(generic)")
        }
        await cluster.shutdown()
    }

    /// The coordinator's pass looks for running productions whose stage has nothing left to run
    /// without reading `productions` or `jobs` whole, also with statistics that put every job in
    /// one production (where the planner judged the active-stage index no better than a
    /// sequential scan of `jobs`): through `productions_running` and the active-stage index.
    /// Also with statistics of an emptied, vacuumed table, where the pass (its plan kept by the
    /// coordinator's connection) read the whole active-stage index for each running production.
    @Test(arguments: [false, true]) func theCoordinatorsPassReadsNoTableWhole(emptied: Bool) async throws {
        let cluster: TestCluster
        if emptied {
            cluster = try await TestCluster.make()
            try await cluster.postgres.query("VACUUM ANALYZE jobs, productions")
        } else {
            cluster = try await populatedCluster().0
        }
        let plan = try await cluster.postgres.withConnection { connection in
            for (name, value) in JobStore.stageProbePlanSettings { try connection.execute("SET \(name) TO \(value)") }
            defer { try? connection.execute("RESET enable_seqscan") }
            return try connection.query("EXPLAIN (FORMAT JSON) \(JobStore.stagesReadyStatement)").first?.string("QUERY PLAN") ?? ""
        }
        #expect(!plan.contains("Seq Scan"), "\(plan)")
        #expect(plan.contains("productions_running") && plan.contains("jobs_active_stage"), "\(plan)")
        let settings = session(JobStore.stageProbePlanSettings)
        let indexes = try await cluster.jobIndexes(JobStore.stagesReadyStatement, types: "", arguments: "", session: settings)
        #expect(indexes == ["jobs_active_stage"])
        await cluster.shutdown()
    }

    /// A small enqueue's generic plan, made on an empty database (a producer's connection keeps
    /// it as the tables fill): the production it locks is read through its key, not by scanning
    /// `productions`, and no table is scanned whole. Also where row-level security does not
    /// apply (a superuser's connection, or a role that bypasses it): there, with sequential scans
    /// allowed, the plan scanned `productions`.
    @Test(arguments: [false, true]) func anEnqueuesGenericPlanReadsByKeyOnAnEmptyDatabase(vacuumed: Bool) async throws {
        let cluster = try await TestCluster.make()
        if vacuumed { try await cluster.postgres.query("VACUUM ANALYZE jobs, productions, job_history") }
        let statement = JobStore.publishingAdmittedInsertStatement
        // This test's own database: its owner, the test's role, as a superuser would be.
        for table in ["productions", "jobs", "job_history"] {
            try await cluster.postgres.query("ALTER TABLE \(table) NO FORCE ROW LEVEL SECURITY")
        }
        let plan = try await cluster.postgres.withConnection { connection in
            for (name, value) in JobStore.smallEnqueuePlanSettings { try connection.execute("SET \(name) TO \(value)") }
            defer { try? connection.execute("RESET plan_cache_mode; RESET enable_seqscan") }
            try connection.execute("""
                PREPARE probe(uuid[], text[], text[], jsonb[], int2[], int4[], int4[], text[], uuid[], text[],
                              timestamptz[], text[], float8[], uuid[]) AS \(statement)
                """)
            defer { try? connection.execute("DEALLOCATE probe") }
            let production = UUID().uuidString.lowercased()
            return try connection.query("""
                EXPLAIN EXECUTE probe('{\(UUID().uuidString.lowercased())}', '{noop}', '{default}', '{"{}"}', '{4}', '{1}',
                                      '{NULL}', '{key-1}', '{\(production)}', '{NULL}', '{NULL}', '{NULL}', '{NULL}', '{\(production)}')
                """).compactMap { $0.string("QUERY PLAN") }.joined(separator: "\n")
        }
        #expect(plan.contains("productions_pkey"), "\(plan)")
        #expect(!plan.contains("Seq Scan"), "\(plan)")
        await cluster.shutdown()
    }
}
