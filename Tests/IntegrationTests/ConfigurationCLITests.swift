import Composition
import Foundation
import RepartoTestSupport
import Testing

/// The CLI reads one merged configuration: flags, else the environment, else `--env-file` or
/// `.reparto/env` in the working directory; secrets by the one rule. Each test runs `reparto` in
/// a temporary working directory with an environment stripped of Reparto's and the providers'
/// variables, so only what the test writes can configure it.
@Suite("reparto CLI: configuration from flags, environment and env file", .timeLimit(.minutes(2)))
struct ConfigurationCLITests {
    private static let key = "sk-cli-envfile-3e2d1c"

    /// A temporary working directory, removed afterwards.
    private final class WorkingDirectory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-cli-config-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        @discardableResult
        func write(_ text: String, to name: String) throws -> String {
            let file = url.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
            return file.path
        }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    private static func strippedEnvironment() -> [String: String] {
        ProcessInfo.processInfo.environment.filter { name, _ in
            !["REPARTO_", "OPENAI_", "ELEVENLABS_"].contains { name.hasPrefix($0) }
        }
    }

    /// Runs `reparto` in `directory` and captures its output.
    private static func run(_ arguments: [String], in directory: WorkingDirectory,
                            environment: [String: String] = strippedEnvironment()) async throws -> RepartoProcess.Output {
        let process = Process()
        process.executableURL = RepartoProcess.executable
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory.url
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        async let stdout = try onOwnThread { out.fileHandleForReading.readDataToEndOfFile() }
        async let stderr = try onOwnThread { err.fileHandleForReading.readDataToEndOfFile() }
        let (o, e) = try await (stdout, stderr)
        await RepartoProcess.waitForExit(process)
        return .init(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                     stderr: String(decoding: e, as: UTF8.self))
    }

    /// Provider id → configured, as `reparto voices providers list --json` reports them without a database.
    private static func configuredProviders(_ output: RepartoProcess.Output) throws -> [String: Bool] {
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: rows.compactMap { row in
            (row["id"] as? String).map { ($0, row["configured"] as? Bool ?? false) }
        })
    }

    @Test func anAPIKeyOnlyInEnvFileReachesTheProviders() async throws {
        let directory = try WorkingDirectory()
        let envFile = try directory.write("OPENAI_API_KEY=\(Self.key)\n", to: "secrets/test.env")
        let output = try await Self.run(["voices", "providers", "list", "--json", "--env-file", envFile], in: directory)
        let configured = try Self.configuredProviders(output)
        #expect(configured["openai"] == true)
        #expect(configured["elevenlabs"] == false)
        #expect(!output.stdout.contains(Self.key) && !output.stderr.contains(Self.key))
    }

    @Test func anAPIKeyOnlyInDotRepartoEnvReachesTheProviders() async throws {
        let directory = try WorkingDirectory()
        let keyFile = try directory.write(Self.key + "\n", to: "elevenlabs.key")
        try directory.write("ELEVENLABS_API_KEY_FILE=\(keyFile)\n", to: ".reparto/env")
        let configured = try Self.configuredProviders(try await Self.run(["voices", "providers", "list", "--json"], in: directory))
        #expect(configured["elevenlabs"] == true)
        #expect(configured["openai"] == false)
    }

    @Test func envFileReplacesDotRepartoEnv() async throws {
        let directory = try WorkingDirectory()
        try directory.write("OPENAI_API_KEY=\(Self.key)\n", to: ".reparto/env")
        let other = try directory.write("# nothing here\n", to: "other.env")
        let configured = try Self.configuredProviders(
            try await Self.run(["voices", "providers", "list", "--json", "--env-file", other], in: directory))
        #expect(configured["openai"] == false)
    }

    @Test func aWorkerRefusesAKeySetBothWays() async throws {
        let directory = try WorkingDirectory()
        let keyFile = try directory.write(Self.key, to: "openai.key")
        try directory.write("OPENAI_API_KEY_FILE=\(keyFile)\n", to: ".reparto/env")
        var environment = Self.strippedEnvironment()
        environment["OPENAI_API_KEY"] = Self.key
        environment["REPARTO_AMQP_URL"] = "amqp://reparto@127.0.0.1:1/%2f"
        environment["REPARTO_DATABASE_URL"] = "postgres://reparto@127.0.0.1:1/reparto"
        let output = try await Self.run(["worker"], in: directory, environment: environment)
        #expect(output.status != 0)
        #expect(output.stderr == "Error: both OPENAI_API_KEY and OPENAI_API_KEY_FILE are set: set only one\n")
        #expect(!output.stdout.contains(Self.key) && !output.stderr.contains(Self.key))
    }

    @Test func aMissingEnvFileIsOneErrorLine() async throws {
        let directory = try WorkingDirectory()
        let missing = directory.url.appendingPathComponent("missing.env").path
        let output = try await Self.run(["status", "--env-file", missing], in: directory)
        #expect(output.status != 0)
        #expect(output.stderr == "Error: cannot read the env file \(missing): no such file\n")
    }

    @Test(arguments: [("--amqp-url", "amqp://reparto:hunter2@127.0.0.1:5672/%2f"),
                      ("--database-url", "postgres://reparto:hunter2@127.0.0.1:5432/reparto")])
    func urlFlagsWithAPasswordAreRefused(flag: String, url: String) async throws {
        let directory = try WorkingDirectory()
        let output = try await Self.run(["status", flag, url], in: directory)
        #expect(output.status != 0)
        let first = output.stderr.split(separator: "\n").first ?? ""
        #expect(first.hasPrefix("Error: \(flag) must not contain a password"), "stderr: \(output.stderr)")
        #expect(!output.stderr.contains("hunter2"))
    }

    @Test func theDatabasePasswordFileNamedInAnEnvFileLogsIn() async throws {
        let cluster = try await TestCluster.make()
        let clusterEnvironment = try cluster.processEnvironment()
        let databaseURL = try #require(clusterEnvironment["REPARTO_DATABASE_URL"])
        let amqpURL = try #require(clusterEnvironment["REPARTO_AMQP_URL"])
        let namespace = try #require(clusterEnvironment["REPARTO_NAMESPACE"])
        var components = try #require(URLComponents(string: databaseURL))
        let password = try #require(components.password, "the test database URL carries a password")
        components.password = nil
        let urlWithoutPassword = try #require(components.string)
        let directory = try WorkingDirectory()
        let passwordFile = try directory.write(password + "\n", to: "db.password")
        let envFile = try directory.write("""
            REPARTO_DATABASE_URL=\(urlWithoutPassword)
            REPARTO_DATABASE_PASSWORD_FILE=\(passwordFile)
            REPARTO_AMQP_URL=\(amqpURL)
            REPARTO_NAMESPACE=\(namespace)

            """, to: "cluster.env")
        let output = try await Self.run(["status", "--json", "--env-file", envFile], in: directory)
        await cluster.shutdown()
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(!output.stdout.contains(password) && !output.stderr.contains(password))
    }

    /// The bug of issue #10: `Kinds.registry` built the pipeline's providers from the process
    /// environment only. A worker whose keys are only in `.reparto/env` records its speech
    /// providers as configured in `voice_providers`.
    @Test func aWorkersProvidersGetKeysFromDotRepartoEnv() async throws {
        let cluster = try await TestCluster.make()
        let directory = try WorkingDirectory()
        let keyFile = try directory.write(Self.key + "\n", to: "elevenlabs.key")
        try directory.write("OPENAI_API_KEY=\(Self.key)\nELEVENLABS_API_KEY_FILE=\(keyFile)\n", to: ".reparto/env")
        var environment = try cluster.processEnvironment().filter { name, _ in
            !name.hasPrefix("OPENAI_") && !name.hasPrefix("ELEVENLABS_")
        }
        environment["REPARTO_ASSETS"] = directory.url.appendingPathComponent("assets").path
        let worker = Process()
        worker.executableURL = RepartoProcess.executable
        worker.arguments = ["worker", "--queues", "generate", "--concurrency", "1", "--heartbeat", "\(TestCluster.heartbeatSeconds)"]
        worker.environment = environment
        worker.currentDirectoryURL = directory.url
        worker.standardOutput = FileHandle.nullDevice
        worker.standardError = FileHandle.nullDevice
        try worker.run()
        do {
            try await cluster.wait(for: "the worker to record its providers") {
                try await cluster.count("SELECT count(*) AS n FROM voice_providers WHERE id IN ('openai', 'elevenlabs') AND configured") == 2
            }
        } catch {
            worker.terminate()
            await RepartoProcess.waitForExit(worker)
            await cluster.shutdown()
            throw error
        }
        worker.terminate()
        await RepartoProcess.waitForExit(worker)
        await cluster.shutdown()
        #expect(worker.terminationStatus == 0)
    }
}
