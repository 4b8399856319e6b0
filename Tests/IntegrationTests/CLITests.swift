import Foundation
import RepartoRuntime
import RepartoTestSupport
import Testing

@Suite("reparto CLI: bad input gets one clear error line", .timeLimit(.minutes(2)))
struct CLITests {
    /// The error line, after checking the output looks like a clean failure (no crash, no trace).
    private func expectCleanFailure(_ output: RepartoProcess.Output, mentioning text: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(output.status != 0, sourceLocation: sourceLocation)
        let lines = output.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("Error: ") == true, "stderr: \(output.stderr)", sourceLocation: sourceLocation)
        #expect(lines.first?.contains(text) == true, "stderr: \(output.stderr)", sourceLocation: sourceLocation)
        #expect(!output.stderr.contains("Fatal error") && !output.stderr.contains("backtrace"), sourceLocation: sourceLocation)
    }

    private func environment() throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["REPARTO_DATABASE_URL"] = try TestEnvironment.databaseURL()
        environment["REPARTO_AMQP_URL"] = try TestEnvironment.amqpURL()
        return environment
    }

    @Test func unknownKind() async throws {
        let output = try await RepartoProcess.run(["enqueue", "no-such-kind"], environment: environment())
        expectCleanFailure(output, mentioning: "unknown job kind 'no-such-kind'")
        #expect(output.stderr.split(separator: "\n").count == 1)
    }

    /// Seconds that would not fit the durations and milliseconds they become: refused before anything runs.
    @Test func workerDurationsOutOfRange() async throws {
        for (option, value) in [("--heartbeat", "1e300"), ("--heartbeat", "nan"), ("--heartbeat", "0"), ("--drain-timeout", "1e300"),
                                ("--drain-timeout", "-1")] {
            // The error line, then the argument parser's pointer to --help.
            let output = try await RepartoProcess.run(["worker", "\(option)=\(value)"], environment: environment())
            expectCleanFailure(output, mentioning: "\(option) must be")
        }
    }

    @Test func malformedJSON() async throws {
        let output = try await RepartoProcess.run(["enqueue", "sleep", "--params", "{\"seconds\": "], environment: environment())
        expectCleanFailure(output, mentioning: "not a JSON object")
        #expect(output.stderr.split(separator: "\n").count == 1)
    }

    @Test func parametersOfTheWrongShape() async throws {
        let output = try await RepartoProcess.run(["enqueue", "sleep", "--params", "{\"seconds\": \"soon\"}"], environment: environment())
        expectCleanFailure(output, mentioning: "invalid parameters for job kind 'sleep'")
    }

    @Test func unreachableBroker() async throws {
        var environment = try environment()
        environment["REPARTO_AMQP_URL"] = "amqp://reparto@127.0.0.1:1/%2f"
        // A worker waits for its servers (forever by default); with no wait it fails at once, in one line.
        let output = try await RepartoProcess.run(["worker", "--wait-for-servers", "0"], environment: environment)
        expectCleanFailure(output, mentioning: "cannot connect to 127.0.0.1:1")
        #expect(output.stderr.split(separator: "\n").count == 1)
    }

    @Test func wrongBrokerPassword() async throws {
        var environment = try environment()
        environment["REPARTO_AMQP_PASSWORD"] = "not-the-amqp-password"
        let output = try await RepartoProcess.run(["coordinator"], environment: environment)
        expectCleanFailure(output, mentioning: "refused")
        #expect(!output.stderr.contains("not-the-amqp-password"))
    }

    @Test func wrongDatabasePassword() async throws {
        var environment = try environment()
        environment["REPARTO_DATABASE_PASSWORD"] = "not-the-db-password"
        let output = try await RepartoProcess.run(["status"], environment: environment)
        expectCleanFailure(output, mentioning: "PostgreSQL")
        #expect(!output.stderr.contains("not-the-db-password"))
        #expect(output.stderr.split(separator: "\n").count == 1)
    }

    @Test func passwordsAreRefusedOnTheCommandLine() async throws {
        let output = try await RepartoProcess.run(["status", "--database-url", "postgres://u:secret@127.0.0.1/db"],
                                                  environment: environment())
        expectCleanFailure(output, mentioning: "must not contain a password")
    }

    @Test func cancelOfAnUnknownID() async throws {
        let cluster = try await TestCluster.make()
        let output = try await RepartoProcess.run(["cancel", UUID().uuidString], environment: cluster.processEnvironment())
        await cluster.shutdown()
        expectCleanFailure(output, mentioning: "no job or production")
        #expect(output.stderr.split(separator: "\n").count == 1)
    }

    @Test func anUnmigratedDatabaseIsNamedAsSuch() async throws {
        let cluster = try await TestCluster.make()
        _ = try await cluster.postgres.query("DROP TABLE jobs CASCADE")
        let output = try await RepartoProcess.run(["status"], environment: cluster.processEnvironment())
        await cluster.shutdown()
        expectCleanFailure(output, mentioning: "run reparto migrate")
    }

    /// A worker and a coordinator refuse a database whose runtime schema is older than their
    /// statements need (a worker would count successes in the rollups twice, and both write
    /// `jobs.lone_crashes`), and say what to run.
    @Test(arguments: ["worker", "coordinator"])
    func aClusterProcessRefusesADatabaseBehindItsBuild(_ command: String) async throws {
        let cluster = try await TestCluster.make()
        let needed = SchemaBehindError.workerRuntimeVersion
        _ = try await cluster.postgres.query("DELETE FROM reparto_migrations WHERE line = 'runtime' AND version >= $1", [needed])
        let output = try await RepartoProcess.run([command], environment: cluster.processEnvironment())
        await cluster.shutdown()
        expectCleanFailure(output, mentioning: "has runtime migration \(needed - 1), this build needs \(needed): run reparto migrate")
    }
}
