import Foundation
import RepartoTestSupport
import Testing

/// Processes started while a server is unreachable wait for it (with a log line per attempt and
/// readiness at 503) instead of exiting; one-shot commands give up after their limit with one
/// clear line. Port 1 on loopback stands for a server that is down: nothing listens there.
@Suite("start-up waiting for the servers", .timeLimit(.minutes(2)))
struct StartupWaitTests {
    func environment() throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["REPARTO_DATABASE_URL"] = try TestEnvironment.databaseURL()
        environment["REPARTO_AMQP_URL"] = try TestEnvironment.amqpURL()
        environment["REPARTO_LOG_FORMAT"] = "json"
        return environment
    }

    /// The messages of the JSON log lines in `lines`.
    func messages(_ lines: [String]) -> [String] {
        lines.compactMap { jsonObject($0)?["message"] as? String }
    }

    @Test func aCoordinatorWaitsForTheDatabaseWithReadinessDownAndStopsCleanly() async throws {
        var environment = try environment()
        environment["REPARTO_DATABASE_URL"] = "postgres://reparto@127.0.0.1:1/reparto"
        let coordinator = try CapturedProcess(["coordinator", "--metrics-port", "0", "--metrics-host", "127.0.0.1"],
                                              environment: environment)
        let port = try await coordinator.waitForLine("the metrics server to listen") {
            listeningPort($0, message: "metrics server listening")
        }
        // Several attempts, each logged: it keeps waiting instead of exiting.
        _ = try await coordinator.waitForLine("a third attempt") { line -> Bool? in
            guard let object = jsonObject(line), object["message"] as? String == "waiting for PostgreSQL",
                  let metadata = object["metadata"] as? [String: Any], let attempt = metadata["attempt"] as? String,
                  Int(attempt).map({ $0 >= 3 }) == true else { return nil }
            return true
        }
        let ready = try await httpGet("http://127.0.0.1:\(port)/readyz")
        #expect(ready.status == 503, "\(ready.body)")
        #expect(coordinator.process.isRunning)
        // SIGTERM during the wait: a clean stop, not an error.
        #expect(await coordinator.terminate() == 0)
        #expect(!coordinator.stderrLines.contains { $0.hasPrefix("Error:") })
    }

    @Test func aWorkerGivesUpAfterItsLimitWithOneErrorLine() async throws {
        var environment = try environment()
        environment["REPARTO_AMQP_URL"] = "amqp://reparto@127.0.0.1:1/%2f"
        environment["REPARTO_WAIT_FOR_SERVERS"] = "1"
        let output = try await RepartoProcess.run(["worker"], environment: environment)
        #expect(output.status != 0)
        let lines = output.stderr.split(separator: "\n").map(String.init)
        let errors = lines.filter { $0.hasPrefix("Error: ") }
        #expect(errors.count == 1, "\(output.stderr)")
        #expect(errors.first?.hasPrefix("Error: RabbitMQ unreachable after") == true, "\(output.stderr)")
        #expect(errors.first?.contains("cannot connect to 127.0.0.1:1") == true)
        #expect(messages(lines).filter { $0 == "waiting for RabbitMQ" }.count >= 2, "\(output.stderr)")
    }

    @Test func aOneShotCommandGivesUpAfterItsLimit() async throws {
        var environment = try environment()
        environment["REPARTO_DATABASE_URL"] = "postgres://reparto@127.0.0.1:1/reparto"
        let output = try await RepartoProcess.run(["status", "--wait-for-servers", "0.5"], environment: environment)
        #expect(output.status != 0)
        let errors = output.stderr.split(separator: "\n").filter { $0.hasPrefix("Error: ") }
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("Error: PostgreSQL unreachable after") == true, "\(output.stderr)")
    }

    @Test func aWrongPasswordIsNotWaitedFor() async throws {
        var environment = try environment()
        environment["REPARTO_DATABASE_PASSWORD"] = "not-the-db-password"
        // A limit of forever: only a permanent error can end this quickly.
        let output = try await RepartoProcess.run(["status", "--wait-for-servers", "forever"], environment: environment)
        #expect(output.status != 0)
        #expect(output.stderr.contains("password authentication failed"), "\(output.stderr)")
        #expect(!output.stderr.contains("waiting for PostgreSQL"))
    }

    @Test func aBadLimitIsRefused() async throws {
        let output = try await RepartoProcess.run(["status", "--wait-for-servers", "soon"], environment: environment())
        #expect(output.status != 0)
        #expect(output.stderr.contains("--wait-for-servers must be a number of seconds or 'forever'"))
    }
}
