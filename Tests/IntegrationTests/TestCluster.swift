import AMQP
import BookImport
import Dispatch
import Foundation
import Jobs
import Logging
import Postgres
import RepartoTestSupport
import ServiceLifecycle
import TableRead
import Threading

/// A private cluster for one test: its own PostgreSQL database (migrated) and its own queue
/// namespace on the shared RabbitMQ, so tests never see each other's jobs.
final class TestCluster: Sendable {
    let name: String
    let postgresConfiguration: PostgresConfiguration
    let adminConfiguration: PostgresConfiguration
    let amqp: AMQPConfiguration
    let postgres: PostgresClient
    let client: JobClient
    let logger: Logger

    private init(name: String, admin: PostgresConfiguration, configuration: PostgresConfiguration, amqp: AMQPConfiguration) {
        self.name = name
        self.adminConfiguration = admin
        self.postgresConfiguration = configuration
        self.amqp = amqp
        var logger = Logger(label: "test.\(name)")
        logger.logLevel = .warning
        self.logger = logger
        postgres = PostgresClient(configuration: configuration, maxConnections: 4, logger: logger)
        client = JobClient(postgres: postgres)
    }

    static func make() async throws -> TestCluster {
        let admin = try PostgresConfiguration(url: TestEnvironment.databaseURL())
        let amqp = try AMQPConfiguration(url: TestEnvironment.amqpURL())
        let name = "reparto_t_\(UUID().uuidString.prefix(8).lowercased())"
        let adminClient = PostgresClient(configuration: admin, maxConnections: 1)
        // The name is generated above from hex digits: safe as an identifier.
        _ = try await adminClient.query("CREATE DATABASE \(name)")
        await adminClient.shutdown()
        var configuration = admin
        configuration.database = name
        let cluster = TestCluster(name: name, admin: admin, configuration: configuration, amqp: amqp)
        let migrations = try Migrator.load(directory: TestEnvironment.repositoryRoot.appendingPathComponent("migrations"))
        _ = try await cluster.postgres.withConnection { try Migrator.migrate(migrations, on: $0) }
        return cluster
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

    /// An in-process worker, heartbeating every `heartbeatSeconds`.
    func startWorker(registry: JobRegistry = .withBuiltins(), concurrency: Int = 8, prefetch: Int = 64,
                     heartbeat: Double = Double(TestCluster.heartbeatSeconds), drainTimeout: Double = 5) -> RunningService {
        let worker = Worker(amqp: amqp, postgres: postgres, registry: registry,
                            settings: WorkerSettings(queues: registry.queues, concurrency: concurrency, prefetch: prefetch,
                                                     heartbeatInterval: heartbeat, drainTimeout: drainTimeout, namespace: name),
                            logger: logger)
        return RunningService(worker, logger: logger)
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
    }
}

extension TestCluster {
    /// Deletes the cluster's work queues from the shared RabbitMQ: left behind, a few hundred per
    /// run, they make every later broker restart recover them all (minutes on a busy machine).
    private func deleteQueues() async {
        let used = (try? await postgres.query("SELECT DISTINCT queue FROM jobs").compactMap { $0.string("queue") }) ?? []
        // A `reparto worker` subprocess declares every queue of the build's kinds, used or not.
        let declared = JobRegistry.withBuiltins().queues
            + [ParseJob.queue, EnrichJob.queue, GenerateJob.queue, AssembleJob.queue, BookParseJob.queue]
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

    init(_ service: some Service, logger: Logger) {
        let group = ServiceGroup(configuration: .init(services: [.init(service: service)], logger: logger))
        self.group = group
        task = Task { try await group.run() }
    }

    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

/// Runs the built `reparto` executable.
enum RepartoProcess {
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("reparto")
    }

    static func start(_ arguments: [String], environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs to completion and captures both streams.
    /// `stdin`, when given, is written to the process's standard input, which is then closed;
    /// `directory`, when given, is its current directory.
    static func run(_ arguments: [String], environment: [String: String], stdin: Data? = nil,
                    directory: URL? = nil) async throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        if stdin != nil { process.standardInput = input }
        try process.run()
        if let stdin {
            _ = try await onOwnThread {
                try input.fileHandleForWriting.write(contentsOf: stdin)
                try input.fileHandleForWriting.close()
            }
        }
        // Blocking reads on threads of their own: a detached task is still on the cooperative pool
        // (two threads on two cores), and blocking it for a whole `reparto run` starved every
        // in-process worker's heartbeat in the test process (false rescues in other tests).
        async let stdout = try onOwnThread { out.fileHandleForReading.readDataToEndOfFile() }
        async let stderr = try onOwnThread { err.fileHandleForReading.readDataToEndOfFile() }
        let (o, e) = try await (stdout, stderr)
        await waitForExit(process)
        return Output(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                      stderr: String(decoding: e, as: UTF8.self))
    }

    static func waitForExit(_ process: Process) async {
        _ = try? await onOwnThread { process.waitUntilExit() }
    }
}

/// Runs blocking code on its own dispatch thread, never the cooperative pool.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue(label: "test.blocking").async {
            continuation.resume(with: Result { try body() })
        }
    }
}
