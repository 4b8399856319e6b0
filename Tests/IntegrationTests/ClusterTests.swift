import AMQP
import Foundation
import TableRead
import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// Parameters for a test kind whose effect is committed with its completion.
struct RecordJob: JobParameters {
    static let kind = "test.record"
    var value: Int
}

/// A two-stage plan: stage "a" fans out, stage "b" runs once "a" is done, then the production ends.
struct TwoStagePlan: ProductionPlan {
    var name: String { "test.two-stage" }
    func advance(_ production: ProductionSnapshot, on connection: PostgresConnection) throws -> StageDecision {
        if production.stage == "a" {
            return .next(stage: "b", jobs: try (0..<10).map { _ in try JobRequest(NoopJob()) })
        }
        return .finish
    }
}

@Suite("Job runtime against RabbitMQ and PostgreSQL", .serialized, .timeLimit(.minutes(3)))
struct ClusterTests {
    @Test func jobsRunAndResultsAreKept() async throws {
        let cluster = try await TestCluster.make()
        let worker = cluster.startWorker()
        let coordinator = cluster.startCoordinator()
        let production = try await cluster.client.createProduction(name: "basic")
        let options = JobOptions(productionID: production)
        try await cluster.client.enqueue((0..<200).map { _ in try JobRequest(NoopJob(), options: options) })
        let flaky = try await cluster.client.enqueue(FailJob(message: "flaky", succeedOnAttempt: 3), options: options)
        let progress = try await cluster.client.awaitProduction(production, timeout: 60)
        #expect(progress.state == "completed")
        #expect(progress.succeeded == 201)
        let record = try await cluster.client.job(flaky)
        #expect(record.state == .succeeded)
        #expect(record.attempts == 3)
        #expect(try record.decodeResult(FailJobResult.self)?.succeededOnAttempt == 3)
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE publish_pending") == 0)
        try await worker.stop()
        // A stopped worker's row has its final counts, not those of its last heartbeat.
        #expect(try await cluster.count(
            "SELECT jobs_succeeded AS n FROM workers WHERE stopped_at IS NOT NULL") == 201)
        try await coordinator.stop()
        await cluster.shutdown()
    }

    @Test func retriesWithBackoffThenDeadLetters() async throws {
        let cluster = try await TestCluster.make()
        let amqp = cluster.amqp
        // Every attempt's failure as committed: the retry delay is `run_after - now()` of the
        // failing transaction, and each claim's time comes after the run_after before it.
        try await cluster.postgres.withConnection { connection in
            try connection.execute("""
                CREATE TABLE test_transitions (job_id uuid, state text, attempts int, at timestamptz, run_after timestamptz);
                CREATE FUNCTION test_log_transition() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO test_transitions VALUES (NEW.id, NEW.state, NEW.attempts, now(), NEW.run_after);
                RETURN NEW; END $$;
                CREATE TRIGGER test_transition AFTER UPDATE ON jobs FOR EACH ROW
                    WHEN (NEW.state IS DISTINCT FROM OLD.state OR NEW.attempts IS DISTINCT FROM OLD.attempts)
                    EXECUTE FUNCTION test_log_transition();
                """)
        }
        let deadCopy = "reparto.test.dead.\(cluster.name)"
        try await onOwnThread { try Self.watchDeadLetters(amqp, queue: deadCopy) }
        let worker = cluster.startWorker()
        let id = try await cluster.client.enqueue(FailJob(message: "always broken"), options: JobOptions(maxAttempts: 3))
        let permanent = try await cluster.client.enqueue(FailJob(message: "cannot work", permanent: true))
        let dead = try await cluster.client.awaitJob(id, timeout: 60)
        #expect(dead.state == .dead)
        #expect(dead.attempts == 3)
        #expect(dead.lastError?.contains("always broken") == true)
        #expect(dead.lastError?.contains("gave up after 3 attempts") == true)
        let fast = try await cluster.client.awaitJob(permanent, timeout: 30)
        #expect(fast.state == .dead)
        #expect(fast.attempts == 1)

        // FailJob's policy (BuiltinJobs: base 0.05 s, multiplier 2, jitter 0.5): after failure n
        // the ceiling is 0.05·2^(n-1) and the delay lies in [ceiling/2, ceiling], so after the
        // first failure 25–50 ms and after the second 50–100 ms (1 ms slack for rounding).
        let failures = try await cluster.postgres.query("""
            SELECT attempts, extract(epoch FROM run_after - at)::float8 AS delay FROM test_transitions
            WHERE job_id = $1 AND state = 'failed' ORDER BY attempts
            """, [id])
        #expect(failures.map { $0.int("attempts") } == [1, 2])
        let delays = failures.compactMap { $0.string("delay").flatMap(Double.init) }
        #expect(delays.count == 2)
        for (n, delay) in delays.enumerated() {
            let ceiling = 0.05 * pow(2, Double(n))
            #expect(delay >= ceiling / 2 - 0.001 && delay <= ceiling + 0.001, "retry delay \(n + 1) was \(delay) s")
        }
        // No retry ran before its delay was over.
        #expect(try await cluster.count("""
            SELECT count(*) AS n FROM test_transitions f JOIN test_transitions r
              ON r.job_id = f.job_id AND f.state = 'failed' AND r.state = 'running' AND r.attempts = f.attempts + 1
            WHERE f.job_id = $1 AND r.at >= f.run_after
            """, [id]) == 2)

        // Both messages were rejected into the dead-letter exchange (dead-lettering is asynchronous
        // in the broker). Its queue is shared by every namespace, so look for this test's own
        // messages, in the copy this test bound to the exchange.
        let wanted: Set<String> = [id.uuidString.lowercased(), permanent.uuidString.lowercased()]
        try await cluster.wait(for: "this test's dead letters") {
            try await onOwnThread { try Self.deadLetters(amqp, queue: deadCopy, among: wanted) } == wanted
        }
        _ = try await onOwnThread {
            let connection = try AMQPConnection.connect(amqp)
            defer { connection.close() }
            return try connection.deleteQueue(deadCopy)
        }
        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func idempotencyKeyReturnsTheFirstJob() async throws {
        let cluster = try await TestCluster.make()
        let first = try await cluster.client.enqueue(NoopJob(), options: JobOptions(idempotencyKey: "same"))
        let second = try await cluster.client.enqueue(NoopJob(), options: JobOptions(idempotencyKey: "same"))
        #expect(first == second)
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs") == 1)
        await cluster.shutdown()
    }

    @Test func effectsCommitWithTheCompletionAndCallerTransactionsAreRespected() async throws {
        let cluster = try await TestCluster.make()
        _ = try await cluster.postgres.query("CREATE TABLE test_records (job_id uuid PRIMARY KEY, value int NOT NULL)")
        let registry = JobRegistry.withBuiltins()
        registry.register(RecordJob.self) { parameters, context in
            let id = context.jobID
            context.transactional { connection in
                // Only under the planner's defaults: the completion's own settings are not the effects'.
                try connection.query("""
                    INSERT INTO test_records (job_id, value) SELECT $1, $2
                    WHERE current_setting('plan_cache_mode') = 'auto' AND current_setting('enable_seqscan') = 'on'
                    """, [id, parameters.value])
            }
        }
        // A job enqueued in a transaction that rolls back never exists.
        struct Rollback: Error {}
        await #expect(throws: Rollback.self) {
            try await cluster.postgres.withTransaction { connection in
                try JobClient.enqueue([try JobRequest(RecordJob(value: -1))], in: connection)
                throw Rollback()
            }
        }
        let worker = cluster.startWorker(registry: registry)
        let ids = try await cluster.client.enqueue((1...50).map { try JobRequest(RecordJob(value: $0)) })
        for id in ids { _ = try await cluster.client.awaitJob(id, timeout: 30) }
        #expect(try await cluster.count("SELECT count(*) AS n FROM test_records") == 50)
        #expect(try await cluster.count("SELECT sum(value)::int AS n FROM test_records") == 1275)
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs") == 50)
        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func cancellationKeepsFinishedResults() async throws {
        let cluster = try await TestCluster.make()
        let worker = cluster.startWorker(concurrency: 4, drainTimeout: 1)
        let coordinator = cluster.startCoordinator()
        let production = try await cluster.client.createProduction(name: "cancel me")
        let options = JobOptions(productionID: production)
        try await cluster.client.enqueue((0..<5).map { _ in try JobRequest(NoopJob(), options: options) })
        try await cluster.wait(for: "the quick jobs") { try await cluster.client.progress(production).succeeded == 5 }
        try await cluster.client.enqueue((0..<20).map { _ in try JobRequest(SleepJob(seconds: 30), options: options) })
        try await cluster.wait(for: "sleepers to start") { try await cluster.client.progress(production).running >= 1 }
        try await cluster.client.cancel(production)
        try await cluster.wait(for: "running jobs to stop") {
            let progress = try await cluster.client.progress(production)
            return progress.running == 0 && progress.queued == 0
        }
        let progress = try await cluster.client.progress(production)
        #expect(progress.state == "cancelled")
        #expect(progress.succeeded == 5)
        #expect(progress.cancelled == 20)
        try await worker.stop()
        try await coordinator.stop()
        await cluster.shutdown()
    }

    @Test func twoCoordinatorsAdvanceAStageExactlyOnce() async throws {
        let cluster = try await TestCluster.make()
        let worker = cluster.startWorker()
        let coordinators = [cluster.startCoordinator(plans: [TwoStagePlan()]), cluster.startCoordinator(plans: [TwoStagePlan()])]
        let production = try await cluster.client.createProduction(name: "stages", plan: "test.two-stage", stage: "a")
        try await cluster.client.enqueue((0..<50).map { _ in try JobRequest(NoopJob(), options: JobOptions(productionID: production, stage: "a")) })
        let progress = try await cluster.client.awaitProduction(production, timeout: 60)
        #expect(progress.state == "completed")
        #expect(progress.total == 60)
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE stage = 'b'") == 10)
        for coordinator in coordinators { try await coordinator.stop() }
        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func killedWorkerLosesNothingAndAppliesNothingTwice() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.installSuccessLog()
        let coordinator = cluster.startCoordinator()
        let victim = try RepartoProcess.start(TestCluster.workerArguments(["--concurrency", "8", "--prefetch", "32"]),
                                              environment: cluster.processEnvironment())
        // 0.1 s jobs: the victim needs about 4 s for all of them, so the kill below finds some running
        // however loaded the machine (with 0.02 s ones a fast victim could finish them all first).
        let ids = try await cluster.client.enqueue((0..<300).map { _ in try JobRequest(SleepJob(seconds: 0.1)) })
        try await cluster.wait(for: "the victim to finish some jobs and hold others") {
            let succeeded = try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'")
            let running = try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'running'")
            return succeeded >= 30 && running >= 1
        }
        kill(victim.processIdentifier, SIGKILL)
        await RepartoProcess.waitForExit(victim)
        let survivor = cluster.startWorker()
        try await cluster.wait(timeout: 90, for: "every job to finish") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'") == ids.count
        }
        #expect(try await cluster.count("SELECT count(*) AS n FROM test_success_log") == ids.count)
        #expect(try await cluster.count("SELECT count(DISTINCT job_id) AS n FROM test_success_log") == ids.count)
        // The kill interrupted claimed jobs (there were running ones when it came), which were
        // rescued and ran a second attempt: without this, a kill between jobs would also pass.
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE attempts >= 2") >= 1,
                "no job ran a second attempt: the SIGKILL interrupted nothing")
        try await survivor.stop()
        try await coordinator.stop()
        await cluster.shutdown()
    }

    @Test func sigtermDrainsAndExitsCleanly() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.installSuccessLog()
        let worker = try RepartoProcess.start(TestCluster.workerArguments(["--concurrency", "4", "--drain-timeout", "10"]),
                                              environment: cluster.processEnvironment())
        let ids = try await cluster.client.enqueue((0..<12).map { _ in try JobRequest(SleepJob(seconds: 0.5)) })
        try await cluster.wait(for: "jobs to start") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'running'") >= 1
        }
        // The jobs the worker holds when SIGTERM comes (0.5 s each, so still running at the kill
        // below, and a drain of 10 s is ample for them).
        let inFlight = try await cluster.postgres.query("SELECT id, worker_id FROM jobs WHERE state = 'running'")
        let inFlightIDs = inFlight.compactMap { $0.string("id") }
        let drainer = try #require(Set(inFlight.compactMap { $0.string("worker_id") }).first)
        #expect(Set(inFlight.compactMap { $0.string("worker_id") }).count == 1, "only the subprocess runs jobs")
        kill(worker.processIdentifier, SIGTERM)
        await RepartoProcess.waitForExit(worker)
        #expect(worker.terminationStatus == 0)
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'running'") == 0)
        #expect(try await cluster.count("SELECT count(*) AS n FROM workers WHERE stopped_at IS NOT NULL") == 1)
        // Draining means the worker finished what it had started, itself, on the first attempt:
        // a worker that requeued everything and exited at once would leave these queued.
        #expect(try await cluster.count("""
            SELECT count(*) AS n FROM jobs
            WHERE id = ANY($1::uuid[]) AND state = 'succeeded' AND worker_id = $2 AND attempts = 1
            """, [inFlightIDs, drainer]) == inFlightIDs.count)
        #expect(try await cluster.count("SELECT count(*) AS n FROM workers WHERE id = $1 AND stopped_at IS NOT NULL",
                                        [drainer]) == 1)
        let next = cluster.startWorker()
        try await cluster.wait(for: "the rest to finish") {
            try await cluster.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'") == ids.count
        }
        #expect(try await cluster.count("SELECT count(*) AS n FROM test_success_log") == ids.count)
        try await next.stop()
        await cluster.shutdown()
    }

    @Test func migrationsAreIdempotentLockedAndGuardedAgainstEdits() async throws {
        let cluster = try await TestCluster.make() // already migrated once
        let lines = try TestCluster.migrationLines()
        let configuration = cluster.postgresConfiguration
        // Two migrators at once, on their own connections: both succeed, nothing is applied twice.
        async let first = onOwnThread { try Self.migrateOnce(lines, configuration) }
        async let second = onOwnThread { try Self.migrateOnce(lines, configuration) }
        #expect(try await first + second == 0)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM reparto_migrations")
                == lines.reduce(0) { $0 + $1.migrations.count })
        // Every line of this build, each recorded under its own name.
        #expect(try await cluster.count("SELECT count(DISTINCT line)::int AS n FROM reparto_migrations") == lines.count)
        // A production type's migration edited after it was applied is refused, naming the line.
        let index = try #require(lines.firstIndex { $0.name == TableReadProduction.name })
        let line = lines[index], original = line.migrations[0]
        var edited = lines
        edited[index] = try MigrationLine(name: line.name, dependsOn: line.dependsOn, migrations:
            [Migration(version: original.version, name: original.name, sql: original.sql + "\n-- edited")] + line.migrations.dropFirst())
        let tampered = edited
        await #expect(throws: MigrationError.edited(line: line.name, version: original.version, name: original.name)) {
            try await cluster.postgres.withConnection { try Migrator.migrate(tampered, on: $0) }
        }
        await cluster.shutdown()
    }

    static func migrateOnce(_ lines: [MigrationLine], _ configuration: PostgresConfiguration) throws -> Int {
        let connection = try PostgresConnection.connect(configuration)
        defer { connection.close() }
        return try Migrator.migrate(lines, on: connection).count
    }

    /// Binds a queue of the test's own, `queue`, to the dead-letter exchange: from now on it holds
    /// a copy of every dead letter, however many the shared `reparto.dead` already holds ahead of
    /// this test's (a quorum queue delivers at most 2,000 unacknowledged messages to a reader, so
    /// on a broker that collected more, a test's own were out of reach). It expires unused.
    @available(*, noasync)
    static func watchDeadLetters(_ amqp: AMQPConfiguration, queue: String) throws {
        let connection = try AMQPConnection.connect(amqp)
        defer { connection.close() }
        try JobTopology.declareBase(on: connection)
        _ = try connection.declareQueue(queue, durable: false, arguments: ["x-expires": .long(600_000)])
        try connection.bindQueue(queue, exchange: JobTopology.deadExchange, routingKey: "")
    }

    /// Which of `wanted` (message ids, i.e. job ids) are in the dead-letter copy `queue`
    /// (``watchDeadLetters(_:queue:)``). Reads without acknowledging: closing the connection
    /// returns every message for the next look.
    @available(*, noasync)
    static func deadLetters(_ amqp: AMQPConfiguration, queue: String, among wanted: Set<String>) throws -> Set<String> {
        let connection = try AMQPConnection.connect(amqp)
        defer { connection.close() }
        _ = try connection.consume(queue: queue)
        var found = Set<String>()
        while found != wanted, let delivery = try connection.nextDelivery(timeout: 1) {
            if let id = delivery.messageID, wanted.contains(id) { found.insert(id) }
        }
        return found
    }
}
