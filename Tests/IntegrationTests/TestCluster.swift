import RepartoConfiguration
import SpeechJobs
import AMQP
import BookImport
import Dispatch
import Composition
import Foundation
import RepartoRuntime
import Logging
import Postgres
import RepartoTestSupport
import ServiceLifecycle
import TableRead
import Testing
import Threading

/// A private cluster for one test: its own PostgreSQL database (migrated), its own queue
/// namespace on the shared RabbitMQ and its own asset root, so tests never see each other's jobs
/// or files (nor the demo's `.reparto/assets`).
///
/// Connections it may open at once (the bound `scripts/services` sizes `max_connections` from,
/// see docs/testing.md): its pool (4) and, while `make`/`shutdown` run, one admin connection; per
/// in-process worker its own pool (4, as a `reparto worker` process has) and its relay (1); per
/// coordinator 2 (its connection and its relay's); one listener per `awaitJob`/`awaitProduction`.
final class TestCluster: Sendable {
    let name: String
    /// The cluster's asset root (a fresh temporary directory, removed by `shutdown`):
    /// `REPARTO_ASSETS` of its subprocesses.
    let assetsRoot: URL
    let postgresConfiguration: PostgresConfiguration
    let adminConfiguration: PostgresConfiguration
    let amqp: AMQPConfiguration
    let postgres: PostgresClient
    let client: JobClient
    let logger: Logger

    private init(name: String, admin: PostgresConfiguration, configuration: PostgresConfiguration, amqp: AMQPConfiguration,
                 assetsRoot: URL) {
        self.name = name
        self.assetsRoot = assetsRoot
        self.adminConfiguration = admin
        self.postgresConfiguration = configuration
        self.amqp = amqp
        var logger = Logger(label: "test.\(name)")
        logger.logLevel = .warning
        self.logger = logger
        postgres = PostgresClient(configuration: configuration, maxConnections: 4, logger: logger)
        client = JobClient(postgres: postgres)
    }

    /// - Parameter migrated: false leaves the database empty (for tests of the migrations themselves).
    static func make(migrated: Bool = true) async throws -> TestCluster {
        let admin = try PostgresConfiguration(url: TestEnvironment.databaseURL())
        let amqp = try AMQPConfiguration(url: TestEnvironment.amqpURL())
        let name = "reparto_t_\(UUID().uuidString.prefix(8).lowercased())"
        let adminClient = PostgresClient(configuration: admin, maxConnections: 1)
        // The name is generated above from hex digits: safe as an identifier.
        _ = try await adminClient.query("CREATE DATABASE \(name)")
        await adminClient.shutdown()
        var configuration = admin
        configuration.database = name
        // The namespace a `reparto` subprocess of this cluster gets from REPARTO_NAMESPACE: row-level
        // security shows each session only its namespace's jobs, so the test's own queries need it too.
        configuration.sessionSettings[ClusterSettings.namespaceSetting] = name
        let assetsRoot = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-t-assets-\(name)")
        try FileManager.default.createDirectory(at: assetsRoot, withIntermediateDirectories: true)
        let cluster = TestCluster(name: name, admin: admin, configuration: configuration, amqp: amqp, assetsRoot: assetsRoot)
        if migrated {
            let lines = try TestCluster.migrationLines()
            _ = try await cluster.postgres.withConnection { try Migrator.migrate(lines, on: $0) }
        }
        return cluster
    }

    /// Every migration line of this build, the runtime's read from this checkout.
    static func migrationLines() throws -> [MigrationLine] {
        try Kinds.migrationLines(ConfigurationValues(environment: [:]),
                                 runtimeDirectory: TestEnvironment.repositoryRoot.appendingPathComponent("migrations"))
    }

    /// Records every transition into `succeeded`, to prove no job's effect is applied twice.
    func installSuccessLog() async throws {
        try await postgres.withConnection { connection in
            try connection.execute("""
                CREATE TABLE test_success_log (job_id uuid NOT NULL);
                CREATE FUNCTION test_log_success() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO test_success_log VALUES (NEW.id); RETURN NEW; END $$;
                CREATE TRIGGER test_success AFTER UPDATE OF state ON jobs FOR EACH ROW
                    WHEN (NEW.state = 'succeeded' AND OLD.state IS DISTINCT FROM 'succeeded')
                    EXECUTE FUNCTION test_log_success();
                """)
        }
    }

    /// The heartbeat interval of every test worker, in-process or `reparto worker` subprocess:
    /// one second (stale after 3 s). The test process runs many suites at once on two cores, and
    /// shorter intervals (0.3 s was used once) let a late heartbeat pass for a dead worker.
    static let heartbeatSeconds = 1

    /// Arguments that start a `reparto worker` subprocess with the tested heartbeat interval.
    static func workerArguments(_ extra: [String]) -> [String] {
        ["worker", "--heartbeat", "\(heartbeatSeconds)"] + extra
    }

    /// An in-process worker, heartbeating every `heartbeatSeconds`, on a pool of its own of
    /// `poolSize` connections (a `reparto worker` process has 4), closed when it stops.
    ///
    /// Its own pool, not the cluster's: workers that shared the cluster's 4 connections with each
    /// other, the test's polls and its client queued their heartbeats behind claims and
    /// completions; a heartbeat 3 s late counts the worker dead (`reparto_worker_alive`), so its
    /// limit slots looked free (LimitsTests saw 4 running under a cap of 2) and its jobs were
    /// claimed again (run twice).
    func startWorker(registry: JobRegistry = .withBuiltins(), concurrency: Int = 8, prefetch: Int = 64,
                     heartbeat: Double = Double(TestCluster.heartbeatSeconds), drainTimeout: Double = 5,
                     poolSize: Int = 4) -> RunningService {
        let pool = PostgresClient(configuration: postgresConfiguration, maxConnections: poolSize, logger: logger)
        let worker = Worker(amqp: amqp, postgres: pool, registry: registry,
                            settings: WorkerSettings(queues: registry.queues, concurrency: concurrency, prefetch: prefetch,
                                                     heartbeatInterval: heartbeat, drainTimeout: drainTimeout, namespace: name),
                            logger: logger)
        return RunningService(worker, logger: logger, afterStop: { await pool.shutdown() })
    }

    func startCoordinator(plans: [any ProductionPlan] = []) -> RunningService {
        RunningService(Coordinator(postgres: postgresConfiguration, amqp: amqp, namespace: name, plans: plans,
                                   settings: CoordinatorSettings(tick: 0.2), logger: logger), logger: logger)
    }

    /// Environment for a `reparto` subprocess pointed at this cluster.
    func processEnvironment() throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        var url = URLComponents()
        url.scheme = "postgres"
        url.user = postgresConfiguration.user
        url.password = postgresConfiguration.password
        url.host = postgresConfiguration.host
        url.port = postgresConfiguration.port
        url.path = "/\(name)"
        environment["REPARTO_DATABASE_URL"] = url.string
        environment["REPARTO_AMQP_URL"] = try TestEnvironment.amqpURL()
        environment["REPARTO_NAMESPACE"] = name
        // Never the shared `.reparto/assets` the subprocess would read from `.reparto/env`.
        environment["REPARTO_ASSETS"] = assetsRoot.path
        return environment
    }

    func count(_ sql: String, _ parameters: [any PostgresEncodable & Sendable] = []) async throws -> Int {
        try await postgres.query(sql, parameters).first?.int("n") ?? -1
    }

    /// Waits until `condition` holds, re-checking whenever a job of the cluster changes (or every 100 ms).
    func wait(timeout: Double = 60, for what: String, _ condition: @Sendable () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while try await !condition() {
            if ContinuousClock.now > deadline { throw TestTimeout(what: what) }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func shutdown() async {
        await deleteQueues()
        await postgres.shutdown()
        let admin = PostgresClient(configuration: adminConfiguration, maxConnections: 1)
        _ = try? await admin.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        await admin.shutdown()
        try? FileManager.default.removeItem(at: assetsRoot)
    }
}

extension TestCluster {
    /// Runs `action` on a broker connection of its own, on a thread of its own, with the name of
    /// the cluster's `default` work queue.
    func onBroker<T: Sendable>(_ action: @escaping @Sendable (AMQPConnection, String) throws -> T) async throws -> T {
        let queue = JobTopology.queueName("default", namespace: name)
        let amqp = amqp
        return try await BlockingWork.run {
            let connection = try AMQPConnection.connect(amqp)
            defer { connection.close() }
            return try action(connection, queue)
        }
    }

    /// Starts a worker, waits until every job of `ids` succeeded, and checks each ran exactly once
    /// (the success log ``installSuccessLog()`` keeps).
    func expectEachRunsOnce(_ ids: [UUID], after what: String) async throws {
        let worker = startWorker()
        try await wait(timeout: 120, for: "every job to succeed after \(what)") {
            try await self.count("SELECT count(*) AS n FROM jobs WHERE state = 'succeeded'") == ids.count
        }
        #expect(try await count("SELECT count(*) AS n FROM test_success_log") == ids.count)
        #expect(try await count("SELECT count(DISTINCT job_id) AS n FROM test_success_log") == ids.count)
        try await worker.stop()
    }

    /// Deletes the cluster's work queues from the shared RabbitMQ: left behind, a few hundred per
    /// run, they make every later broker restart recover them all (minutes on a busy machine).
    private func deleteQueues() async {
        let used = (try? await postgres.query("SELECT DISTINCT queue FROM jobs").compactMap { $0.string("queue") }) ?? []
        // A `reparto worker` subprocess declares every queue of the build's kinds, used or not.
        let declared = JobRegistry.withBuiltins().queues
            + [ParseJob.queue, EnrichJob.queue, SpeechJob.queue, AssembleJob.queue, BookParseJob.queue]
        let names = Set(used + declared).map { JobTopology.queueName($0, namespace: name) }
        let amqp = amqp
        _ = try? await BlockingWork.run {
            let connection = try AMQPConnection.connect(amqp)
            defer { connection.close() }
            for queue in names { _ = try? connection.deleteQueue(queue) }
        }
    }
}

struct TestTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// A service running in a ServiceGroup on a task, stoppable like SIGTERM would.
final class RunningService: Sendable {
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    private let afterStop: @Sendable () async -> Void

    /// `afterStop` runs once the service has ended (closing what only it used, e.g. its pool).
    init(_ service: some Service, logger: Logger, afterStop: @escaping @Sendable () async -> Void = {}) {
        let group = ServiceGroup(configuration: .init(services: [.init(service: service)], logger: logger))
        self.group = group
        self.afterStop = afterStop
        task = Task {
            do {
                try await group.run()
            } catch {
                await afterStop()
                throw error
            }
            await afterStop()
        }
    }

    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

/// Runs the built `reparto` executable. Every process has a deadline (``ProcessDeadline``): a
/// `run` that passes it is killed and throws ``ProcessTimedOut`` naming the command; a `start`ed
/// process the test forgot to stop is killed at its deadline or when the test process exits.
enum RepartoProcess {
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("reparto")
    }

    /// The default deadline of `run`, in seconds: longer than any `--timeout` a test passes
    /// (at most 120 s), shorter than the suites' time limits.
    static let runTimeout: Double = 200
    /// The default deadline of a `start`ed process (a worker, a coordinator): longer than the
    /// longest suite time limit (6 minutes), so it only catches processes nobody stopped.
    static let startTimeout: Double = 420

    /// Starts a long-running process (output discarded), killed at `timeout` at the latest.
    static func start(_ arguments: [String], environment: [String: String], timeout: Double = startTimeout) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = neutralDirectory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        _ = ProcessDeadline(process, command: ProcessDeadline.describe("reparto", arguments), seconds: timeout)
        return process
    }

    typealias Output = CapturedOutput

    /// Runs to completion and captures both streams.
    /// `stdin`, when given, is written to the process's standard input, which is then closed;
    /// `directory`, when given, is its current directory. After `timeout` seconds (or when the
    /// test is cancelled, as its time limit does) the process is killed and this throws
    /// ``ProcessTimedOut`` naming the command.
    static func run(_ arguments: [String], environment: [String: String], stdin: Data? = nil,
                    directory: URL? = nil, timeout: Double = runTimeout) async throws -> Output {
        try await runSubprocess(executable, arguments, environment: environment, stdin: stdin,
                                directory: directory ?? neutralDirectory, timeout: timeout)
    }

    /// The working directory of a subprocess that was given none: an empty one, never the
    /// repository. From the repository root `reparto` would read `.reparto/env` for every variable
    /// the test left unset (a developer's `ANTHROPIC_API_KEY`, the demo's asset root), and write
    /// relative paths (`.reparto/assets`) where the demo and every other test write.
    static let neutralDirectory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-test-cwd-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Waits for `process` to exit; after `timeout` seconds (or when the test is cancelled) it is
    /// killed (SIGTERM, then SIGKILL) and the test gets an issue naming it.
    static func waitForExit(_ process: Process, timeout: Double = 120,
                            sourceLocation: SourceLocation = #_sourceLocation) async {
        let command = ProcessDeadline.describe(process.executableURL?.lastPathComponent ?? "?", process.arguments ?? [])
        if await !waitForSubprocess(process, command: command, timeout: timeout) {
            Issue.record("`\(command)` did not exit within \(timeout) s and was killed", sourceLocation: sourceLocation)
        }
    }
}

/// Runs blocking code on its own dispatch thread, never the cooperative pool.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await onThreadOfItsOwn(body)
}
