import AMQP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Operations
import Postgres
import RepartoRuntime
import RepartoTestSupport
import Testing
import Threading

/// docs/operations.md, "Reading from a replica": with `REPARTO_DASHBOARD_DATABASE_URL` naming a
/// streaming standby, `reparto status` and the dashboard read the `ops.*` views there — nothing on
/// their path writes, which a standby would refuse — scoped to their namespace as on the primary.
///
/// The test runs a primary and a standby of its own (``LocalPostgresPair``), never the shared
/// server: `initdb`, `pg_basebackup -R`, two free loopback ports. The shared RabbitMQ carries the
/// jobs, in namespaces of the test's own.
@Suite("Replica reads: reparto status and the dashboard read a streaming standby", .timeLimit(.minutes(6)))
struct ReplicaReadTests {
    /// The counts of one kind in `ops.queue_overview`.
    struct KindCounts: Equatable, CustomStringConvertible {
        var queued = 0, running = 0, succeeded = 0, failed = 0, dead = 0, cancelled = 0
        var description: String { "queued \(queued) running \(running) succeeded \(succeeded) failed \(failed) dead \(dead) cancelled \(cancelled)" }

        init(queued: Int = 0, succeeded: Int = 0, dead: Int = 0) { (self.queued, self.succeeded, self.dead) = (queued, succeeded, dead) }

        init(_ row: [String: Any]) {
            func int(_ key: String) -> Int { (row[key] as? Int) ?? (row[key] as? String).flatMap(Int.init) ?? -1 }
            (queued, running, succeeded, failed, dead, cancelled)
                = (int("queued"), int("running"), int("succeeded"), int("failed"), int("dead"), int("cancelled"))
        }
    }

    /// What a reader shows: counts per kind and the production's progress.
    struct Figures: Equatable, CustomStringConvertible {
        var kinds: [String: KindCounts]
        /// `total`, `done`, `succeeded`, `failed` (dead) of the test's production.
        var production: [Int]
        var description: String { "kinds \(kinds.sorted { $0.key < $1.key }), production \(production)" }
    }

    @Test func statusAndTheDashboardReadTheStandbyAsThePrimaryWouldAnswer() async throws {
        let ownerPassword = UUID().uuidString, readerPassword = "reader-\(UUID().uuidString)"
        let namespace = TestEnvironment.uniqueName("replica"), otherNamespace = TestEnvironment.uniqueName("replica-other")
        let amqp = try AMQPConfiguration(url: TestEnvironment.amqpURL())
        var logger = Logger(label: "test.replica")
        logger.logLevel = .warning

        try await LocalPostgresPair.withPrimaryAndStandby(prepare: { primary, _ in
            // As scripts/services sets the shared server up: the schema's owner is no superuser, so
            // row-level security (the namespaces) applies to it.
            try await Self.superuser(primary) { admin in
                _ = try await admin.query("CREATE ROLE reparto LOGIN CREATEDB CREATEROLE PASSWORD '\(ownerPassword)'")
                _ = try await admin.query("CREATE DATABASE reparto OWNER reparto")
            }
        }) { pair in
            try await withCleanup {
                try await Self.readTheStandby(pair, ownerPassword: ownerPassword, readerPassword: readerPassword, namespace: namespace,
                                              otherNamespace: otherNamespace, amqp: amqp, logger: logger)
            } cleanup: {
                await Self.deleteQueues(namespace: namespace, amqp: amqp)
            }
        }
    }

    private static func readTheStandby(_ pair: LocalPostgresPair, ownerPassword: String, readerPassword: String, namespace: String,
                                       otherNamespace: String, amqp: AMQPConfiguration, logger: Logger) async throws {
        let primaryURL = "postgres://reparto@127.0.0.1:\(pair.primary.port)/reparto?sslmode=disable&gssencmode=disable"
        var environment = Self.environment()
        environment["REPARTO_DATABASE_URL"] = primaryURL
        environment["REPARTO_DATABASE_PASSWORD"] = ownerPassword
        environment["REPARTO_NAMESPACE"] = namespace
        let migrate = try await RepartoProcess.run(
            ["migrate", "--directory", TestEnvironment.repositoryRoot.appendingPathComponent("migrations").path], environment: environment)
        try #require(migrate.status == 0, "reparto migrate: \(migrate.stderr)")
        // The documented reader: a login with the read-only role's grants and nothing else.
        try await Self.superuser(pair.primary, database: "reparto") { admin in
            _ = try await admin.query("CREATE ROLE reparto_web LOGIN PASSWORD '\(readerPassword)'")
            _ = try await admin.query("GRANT reparto_dashboard TO reparto_web")
        }

        var primary = PostgresConfiguration(host: "127.0.0.1", port: pair.primary.port, user: "reparto", password: ownerPassword,
                                            database: "reparto")
        primary.sslMode = .disable
        primary.gssEncryptionMode = .disable
        let production = try await Self.runJobs(on: primary, namespace: namespace, amqp: amqp, logger: logger)
        var other = primary
        other.sessionSettings[ClusterSettings.namespaceSetting] = otherNamespace
        let otherClient = PostgresClient(configuration: other, maxConnections: 1, logger: logger)
        _ = try await withCleanup {
            try await JobClient(postgres: otherClient).enqueue((0..<5).map { _ in try JobRequest(NoopJob()) })
        } cleanup: { await otherClient.shutdown() }

        try await Self.waitUntilReplayed(pair)

        // What the primary answers, and the same read through the standby.
        let onPrimary = try await Self.status(environment)
        let replicaURL = "postgres://reparto_web:\(readerPassword)@127.0.0.1:\(pair.standby.port)/reparto?sslmode=disable&gssencmode=disable"
        environment[OperationsEndpoints.dashboardDatabaseURLVariable] = replicaURL
        let onStandby = try await Self.status(environment)
        // Nothing reaches the primary any more: the replica alone answers.
        environment["REPARTO_DATABASE_URL"] = "postgres://nobody@127.0.0.1:1/nowhere"
        environment["REPARTO_WAIT_FOR_SERVERS"] = "0"
        let standbyAlone = try await Self.status(environment)

        let expected = Figures(kinds: ["noop": KindCounts(queued: 3, succeeded: 7), "fail": KindCounts(dead: 2)], production: [6, 6, 4, 2])
        #expect(Self.figures(onPrimary.json, production: production) == expected, "the primary's own figures")
        #expect(Self.figures(onStandby.json, production: production) == expected, "the standby shows the primary's figures")
        #expect(Self.figures(standbyAlone.json, production: production) == expected, "read from the standby alone")
        #expect(Self.queueOverview(onStandby.json) == Self.queueOverview(onPrimary.json))
        for output in [onPrimary.output, onStandby.output, standbyAlone.output] {
            #expect(!output.stdout.contains(readerPassword) && !output.stderr.contains(readerPassword), "the password is never printed")
            #expect(!output.stdout.contains(ownerPassword) && !output.stderr.contains(ownerPassword))
        }

        // The other namespace's jobs are its own on the standby too: its connection set reparto.namespace.
        var otherEnvironment = environment
        otherEnvironment["REPARTO_NAMESPACE"] = otherNamespace
        let otherStatus = try await Self.status(otherEnvironment)
        #expect(Self.figures(otherStatus.json, production: production).kinds == ["noop": KindCounts(queued: 5)])

        try await Self.checkDashboard(environment, standbyPort: pair.standby.port, production: production, expected: expected,
                                      secrets: [readerPassword, ownerPassword])
    }

    /// No server needed: the value is refused before anything connects, in one line that names the
    /// variable and repeats nothing of the URL.
    @Test(arguments: [["status", "--json"], ["dashboard", "--port", "0"]])
    func aMalformedReplicaURLIsOneLineNamingTheVariable(_ command: [String]) async throws {
        var environment = Self.environment()
        environment["REPARTO_DATABASE_URL"] = "postgres://nobody@127.0.0.1:1/nowhere"
        environment[OperationsEndpoints.dashboardDatabaseURLVariable] = "postgres://reader:hunter2-SECRET@replica-host:54x32/reparto"
        let output = try await RepartoProcess.run(command, environment: environment, timeout: 60)
        #expect(output.status != 0)
        #expect(output.stderr.split(separator: "\n").map(String.init)
                    == ["Error: REPARTO_DASHBOARD_DATABASE_URL is malformed: the port in the database URL is not a number between 1 and 65535"],
                "\(output.stderr)")
        #expect(!output.stdout.contains("hunter2-SECRET") && !output.stderr.contains("hunter2-SECRET"))
    }

    // MARK: - Steps

    /// Runs a production of four no-op and two permanently failing jobs and three loose no-ops
    /// through an in-process worker on the primary, then queues three more no-ops nobody runs.
    private static func runJobs(on primary: PostgresConfiguration, namespace: String, amqp: AMQPConfiguration,
                                logger: Logger) async throws -> UUID {
        var configuration = primary
        configuration.sessionSettings[ClusterSettings.namespaceSetting] = namespace
        let postgres = PostgresClient(configuration: configuration, maxConnections: 2, logger: logger)
        return try await withCleanup {
            let client = JobClient(postgres: postgres)
            let registry = JobRegistry.withBuiltins()
            let pool = PostgresClient(configuration: configuration, maxConnections: 4, logger: logger)
            let worker = RunningService(
                Worker(amqp: amqp, postgres: pool, registry: registry,
                       settings: WorkerSettings(queues: registry.queues, concurrency: 4, prefetch: 16,
                                                heartbeatInterval: Double(TestCluster.heartbeatSeconds), drainTimeout: 5,
                                                namespace: namespace),
                       logger: logger),
                logger: logger, afterStop: { await pool.shutdown() })
            let production = try await withCleanup {
                let production = try await client.createProduction(name: "replica reads")
                let inProduction = JobOptions(productionID: production)
                let ids = try await client.enqueue(
                    (0..<4).map { _ in try JobRequest(NoopJob(), options: inProduction) }
                        + (0..<2).map { _ in try JobRequest(FailJob(message: "on purpose", permanent: true), options: inProduction) }
                        + (0..<3).map { _ in try JobRequest(NoopJob()) })
                for id in ids { _ = try await client.awaitJob(id, timeout: 90) }
                return production
            } cleanup: {
                do { try await worker.stop() } catch { Issue.record("the worker stopped with \(error)") }
            }
            _ = try await client.enqueue((0..<3).map { _ in try JobRequest(NoopJob()) })
            return production
        } cleanup: {
            await postgres.shutdown()
        }
    }

    /// Waits (at most 60 s) until the standby has replayed everything the primary wrote so far.
    private static func waitUntilReplayed(_ pair: LocalPostgresPair) async throws {
        let target = try await superuser(pair.primary) { try await $0.query("SELECT pg_current_wal_lsn()::text AS lsn").first?.string("lsn") }
        let lsn = try #require(target)
        try await superuser(pair.standby) { standby in
            #expect(try await standby.query("SELECT pg_is_in_recovery() AS standby").first?.bool("standby") == true)
            let deadline = ContinuousClock.now + .seconds(60)
            while try await standby.query("SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) AS caught_up", [lsn])
                .first?.bool("caught_up") != true {
                if ContinuousClock.now > deadline { throw TestTimeout(what: "the standby to replay the primary's WAL up to \(lsn)") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// The dashboard on the standby alone: its log names the server it reads, its JSON shows the
    /// primary's figures, and no password appears in anything it prints.
    private static func checkDashboard(_ environment: [String: String], standbyPort: Int, production: UUID, expected: Figures,
                                       secrets: [String]) async throws {
        var environment = environment
        environment["REPARTO_LOG_FORMAT"] = "json"
        let dashboard = try CapturedProcess(["dashboard", "--port", "0", "--host", "127.0.0.1"], environment: environment)
        let listening = try await dashboard.waitForLine("the dashboard to listen") { line -> [String: String]? in
            guard let object = jsonObject(line), object["message"] as? String == "dashboard listening" else { return nil }
            return object["metadata"] as? [String: String]
        }
        #expect(listening["database_server"] == "127.0.0.1:\(standbyPort)")
        #expect(listening["user"] == "reparto_web")
        let base = "http://127.0.0.1:\(try #require(listening["port"].flatMap(Int.init)))"
        #expect(try await httpGet(base + OperationsEndpoints.readyPath).status == 200)

        let queues = try await httpGet(base + OperationsEndpoints.apiPrefix + "/queues")
        #expect(queues.status == 200, "\(queues.body.prefix(500))")
        let rows = (jsonObject(queues.body)?["queues"] as? [[String: Any]]) ?? []
        #expect(kindCounts(rows) == expected.kinds, "/api/queues: \(queues.body.prefix(1000))")

        let productions = try await httpGet(base + OperationsEndpoints.apiPrefix + "/productions")
        #expect(productions.status == 200, "\(productions.body.prefix(500))")
        let progress = ((jsonObject(productions.body)?["productions"] as? [[String: Any]]) ?? [])
            .first { ($0["id"] as? String)?.lowercased() == production.uuidString.lowercased() }
        #expect(progress.map { row in ["total", "done", "succeeded", "failed"].map { row[$0] as? Int ?? -1 } } == expected.production,
                "/api/productions: \(productions.body.prefix(1000))")

        #expect(await dashboard.terminate() == 0)
        let printed = (dashboard.stdoutLines + dashboard.stderrLines).joined(separator: "\n")
        for secret in secrets { #expect(!printed.contains(secret), "the password is never printed") }
    }

    // MARK: - Helpers

    /// The test's environment without any `REPARTO_` variable of the caller's (the shared cluster's).
    private static func environment() -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("REPARTO_") }
    }

    /// `reparto status --json`, which must succeed, and its JSON.
    private static func status(_ environment: [String: String]) async throws -> (json: [String: Any], output: CapturedOutput) {
        let output = try await RepartoProcess.run(["status", "--json", "--limit", "100"], environment: environment, timeout: 60)
        try #require(output.status == 0, "reparto status: \(output.stderr)")
        return (try #require(jsonObject(output.stdout), "status JSON: \(output.stdout.prefix(500))"), output)
    }

    private static func queueOverview(_ json: [String: Any]) -> [String: KindCounts] {
        kindCounts((json["queue_overview"] as? [[String: Any]]) ?? [])
    }

    /// Counts by kind, leaving out kinds without a job (a view may list every kind it knows).
    private static func kindCounts(_ rows: [[String: Any]]) -> [String: KindCounts] {
        Dictionary(rows.compactMap { row in (row["kind"] as? String).map { ($0, KindCounts(row)) } }.filter { $0.1 != KindCounts() },
                   uniquingKeysWith: { first, _ in first })
    }

    private static func figures(_ json: [String: Any], production: UUID) -> Figures {
        let row = ((json["production_progress"] as? [[String: Any]]) ?? [])
            .first { ($0["id"] as? String)?.lowercased() == production.uuidString.lowercased() }
        return Figures(kinds: queueOverview(json),
                       production: row.map { row in ["total", "done", "succeeded", "failed"].map { row[$0] as? Int ?? -1 } } ?? [])
    }

    /// Runs `body` with a superuser connection over the server's socket.
    private static func superuser<T: Sendable>(_ server: LocalPostgresServer, database: String = "postgres",
                                              _ body: (PostgresClient) async throws -> T) async throws -> T {
        let client = PostgresClient(configuration: PostgresConfiguration(host: server.socketDirectory.path, port: server.port,
                                                                         user: "postgres", database: database),
                                    maxConnections: 1)
        return try await withCleanup { try await body(client) } cleanup: { await client.shutdown() }
    }

    /// Deletes the queues the worker declared in `namespace` on the shared RabbitMQ.
    private static func deleteQueues(namespace: String, amqp: AMQPConfiguration) async {
        let names = JobRegistry.withBuiltins().queues.map { JobTopology.queueName($0, namespace: namespace) }
        _ = try? await BlockingWork.run {
            let connection = try AMQPConnection.connect(amqp)
            defer { connection.close() }
            for queue in names { _ = try? connection.deleteQueue(queue) }
        }
    }
}
