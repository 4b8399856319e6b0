import AMQP
import RepartoRuntime
import Logging
import Postgres
import Synchronization
import Testing
import Threading

/// Start-up waiting, without servers: which errors are worth waiting for, and the retry loop.
@Suite("ServerWait", .timeLimit(.minutes(1)))
struct ServerWaitTests {
    @Test(arguments: [
        (PostgresError(.connection, message: "connection to server at \"127.0.0.1\", port 5 failed: Connection refused"), true),
        (PostgresError(.connection, message: "FATAL:  the database system is shutting down"), true),
        (PostgresError(.connection, message: "FATAL:  the database system is starting up"), true),
        (PostgresError(.query, sqlState: "57P03", message: "the database system is in recovery mode"), true),
        (PostgresError(.timeout, message: "no connection within 5 s"), true),
        (PostgresError(.connection, message: "FATAL:  password authentication failed for user \"reparto\""), false),
        (PostgresError(.connection, message: "FATAL:  database \"nope\" does not exist"), false),
        (PostgresError(.connection, sqlState: "28P01", message: "authentication"), false),
        (PostgresError(.configuration, message: "bad URL"), false),
        (PostgresError(.query, sqlState: "42P01", message: "relation does not exist"), false),
    ])
    func postgresErrors(error: PostgresError, transient: Bool) {
        #expect(ServerWait.isTransient(error) == transient, "\(error)")
    }

    @Test(arguments: [
        (AMQPError(.connection, "cannot open a socket to 127.0.0.1:5"), true),
        (AMQPError(.connectionClosed, replyCode: 320, "CONNECTION_FORCED - broker forced connection closure"), true),
        (AMQPError(.timeout, "no reply"), true),
        (AMQPError(.authentication, "ACCESS_REFUSED"), false),
        (AMQPError(.connectionClosed, replyCode: 530, "NOT_ALLOWED - vhost nope not found"), false),
        (AMQPError(.configuration, "bad URL"), false),
    ])
    func amqpErrors(error: AMQPError, transient: Bool) {
        #expect(ServerWait.isTransient(error) == transient, "\(error)")
    }

    @Test func retriesTransientFailuresThenReturns() async throws {
        let attempts = Atomic<Int>(0)
        let waits = Atomic<Int>(0)
        let wait = ServerWait(limit: nil, backoff: Backoff(initial: 0.001, maximum: 0.002))
        let value = try await wait.run("PostgreSQL", logger: Logger(label: "test"), onWaiting: { waits.add(1, ordering: .relaxed) }) {
            if attempts.add(1, ordering: .relaxed).newValue < 4 {
                throw PostgresError(.connection, message: "Connection refused")
            }
            return 42
        }
        #expect(value == 42)
        #expect(attempts.load(ordering: .relaxed) == 4)
        #expect(waits.load(ordering: .relaxed) == 3)
    }

    @Test func aPermanentFailureIsThrownAtOnce() async {
        let attempts = Atomic<Int>(0)
        let wait = ServerWait(limit: nil, backoff: Backoff(initial: 0.001, maximum: 0.002))
        await #expect(throws: AMQPError(.authentication, "ACCESS_REFUSED")) {
            try await wait.run("RabbitMQ", logger: Logger(label: "test")) {
                attempts.add(1, ordering: .relaxed)
                throw AMQPError(.authentication, "ACCESS_REFUSED")
            }
        }
        #expect(attempts.load(ordering: .relaxed) == 1)
    }

    @Test func givesUpAfterTheLimitWithOneClearError() async {
        let attempts = Atomic<Int>(0)
        let wait = ServerWait(limit: 0.05, backoff: Backoff(initial: 0.01, maximum: 0.01))
        do {
            _ = try await wait.run("PostgreSQL", logger: Logger(label: "test")) {
                attempts.add(1, ordering: .relaxed)
                throw PostgresError(.connection, message: "Connection refused")
            }
            Issue.record("expected the wait to give up")
        } catch let error as ServerWaitError {
            #expect(error.server == "PostgreSQL")
            #expect(error.attempts == attempts.load(ordering: .relaxed))
            #expect(error.attempts >= 2)
            #expect(error.description.hasPrefix("PostgreSQL unreachable after"))
            #expect(error.description.contains("Connection refused"))
            #expect(!error.description.contains("\n"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
