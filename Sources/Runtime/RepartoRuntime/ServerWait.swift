import AMQP
import Foundation
import Logging
import Postgres
import ServiceLifecycle
import Threading

/// Waiting for RabbitMQ and PostgreSQL at start-up: a process started while a server is down or
/// restarting retries with backoff and a log line per attempt instead of exiting, up to a limit.
///
/// Only errors that waiting can cure are retried (a refused connection, "the database system is
/// starting up / shutting down", a timeout); a wrong password, an unknown database or role, or a
/// bad URL fails at once with its own error, because no amount of waiting fixes it.
public struct ServerWait: Sendable {
    /// Seconds to keep trying; nil waits forever (the default of long-running services).
    public var limit: Double?
    /// The delays between attempts.
    public var backoff: Backoff

    /// Waits up to `limit` seconds (nil: forever), retrying after 0.2 s doubling up to 5 s.
    public init(limit: Double?, backoff: Backoff = Backoff(initial: 0.2, maximum: 5, jitter: 0.2)) {
        self.limit = limit
        self.backoff = backoff
    }

    /// True when `error`, met while connecting, may go away by waiting.
    public static func isTransient(_ error: any Error) -> Bool {
        if let error = error as? PostgresError { return isTransient(error) }
        if let error = error as? AMQPError { return isTransient(error) }
        return false
    }

    static func isTransient(_ error: PostgresError) -> Bool {
        switch error.kind {
        case .configuration, .protocolViolation:
            return false
        case .timeout, .closed:
            return true
        case .query:
            // 57P03 cannot_connect_now: starting up, shutting down, in recovery.
            return error.isConnectionLost
        case .connection:
            if let state = error.sqlState {
                // 28xxx invalid authorization, 3D000 unknown database, 42xxx: waiting does not help.
                if state.hasPrefix("28") || state == "3D000" || state.hasPrefix("42") { return false }
                return true
            }
            let text = error.message.lowercased()
            let permanent = ["authentication failed", "no pg_hba.conf entry", "does not exist", "permission denied",
                             "invalid", "unsupported", "sslmode"]
            return !permanent.contains { text.contains($0) }
        }
    }

    static func isTransient(_ error: AMQPError) -> Bool {
        switch error.kind {
        case .authentication, .configuration:
            return false
        case .connectionClosed, .channelClosed:
            // 403 ACCESS_REFUSED, 530 NOT_ALLOWED (unknown virtual host): the login is wrong.
            if let code = error.replyCode, code == 403 || code == 530 { return false }
            return error.isConnectionLost
        default:
            return error.isConnectionLost
        }
    }

    /// Runs `attempt` until it succeeds; a transient failure is logged (one warning an attempt,
    /// naming `server`) and retried after the backoff, until ``limit``; a permanent one is thrown
    /// at once. `onWaiting` runs before each wait (e.g. to keep readiness at 503).
    public func run<T: Sendable>(_ server: String, logger: Logger,
                                 onWaiting: @Sendable () -> Void = {},
                                 attempt: @Sendable () async throws -> T) async throws -> T {
        let started = ContinuousClock.now
        var backoff = self.backoff
        while true {
            do {
                let value = try await attempt()
                if backoff.failures > 0 {
                    logger.info("\(server) is reachable", metadata: ["attempts": "\(backoff.failures + 1)"])
                }
                return value
            } catch {
                guard Self.isTransient(error) else { throw error }
                let waited = (ContinuousClock.now - started) / .seconds(1)
                if let limit, waited >= limit {
                    throw ServerWaitError(server: server, seconds: waited, attempts: backoff.failures + 1,
                                          lastError: "\(error)")
                }
                var delay = backoff.next()
                if let limit { delay = min(delay, max(0, limit - waited)) }
                onWaiting()
                logger.warning("waiting for \(server)", metadata: [
                    "attempt": "\(backoff.failures)", "error": "\(error)", "retry_in_s": "\(String(format: "%.2f", delay))",
                ])
                try await Task.sleep(for: .seconds(delay))
            }
        }
    }

}

/// A server stayed unreachable for the whole start-up wait.
public struct ServerWaitError: Error, Sendable, CustomStringConvertible {
    /// `PostgreSQL` or `RabbitMQ`.
    public var server: String
    /// How long it was tried.
    public var seconds: Double
    /// How many attempts failed.
    public var attempts: Int
    /// The last attempt's error (secret-free, as every client error here is).
    public var lastError: String

    public var description: String {
        "\(server) unreachable after \(attempts) attempts in \(String(format: "%.1f", seconds)) s: \(lastError)"
    }
}

extension ServerWait {
    /// The limit from a flag or a variable's text: seconds, or `forever` / `inf` for none.
    public static func limit(parsing text: String) -> Double?? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "forever" || trimmed == "inf" || trimmed == "infinity" { return .some(nil) }
        guard let seconds = Double(trimmed), seconds >= 0, seconds.isFinite else { return nil }
        return .some(seconds)
    }

    /// Waits until RabbitMQ accepts a login (``AMQPConnection/check(_:)``).
    public func broker(_ configuration: AMQPConfiguration, logger: Logger) async throws {
        try await run("RabbitMQ", logger: logger) { try await AMQPConnection.check(configuration) }
    }

    /// Waits until PostgreSQL answers through `client`; returns whether Reparto's schema is there.
    public func database(_ client: PostgresClient, logger: Logger) async throws -> Bool {
        try await run("PostgreSQL", logger: logger) {
            try await client.query("SELECT to_regclass('public.jobs') IS NOT NULL AS ok").first?.bool("ok") ?? false
        }
    }

    /// Waits until PostgreSQL answers through `client` and refuses a database that was never
    /// migrated, or (with `runtimeAtLeast`, for a worker or coordinator) whose runtime migrations stop before
    /// that version.
    /// - Throws: ``SchemaMissingError`` when Reparto's schema is not there; ``SchemaBehindError``;
    ///   the wait's errors.
    public func migratedDatabase(_ client: PostgresClient, logger: Logger, runtimeAtLeast required: Int? = nil) async throws {
        guard try await database(client, logger: logger) else { throw SchemaMissingError(database: client.configuration.database) }
        guard let required else { return }
        let applied = try await client.withConnection { try Migrator.lastApplied(line: "runtime", on: $0) }
        if applied < required {
            throw SchemaBehindError(database: client.configuration.database, applied: applied, required: required)
        }
    }
}

/// The database's runtime schema is older than this build's worker statements need
/// (``workerRuntimeVersion``).
public struct SchemaBehindError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The runtime migration a worker or coordinator of this build needs: since 13 a worker's
    /// completion counts plain successes in the rollups itself (an older trigger would count them
    /// a second time); since 14 completions and the rescue write `jobs.lone_crashes`.
    public static let workerRuntimeVersion = 14
    /// The database's name.
    public var database: String
    /// The last runtime migration applied (0: none recorded).
    public var applied: Int
    /// The runtime migration needed.
    public var required: Int

    public init(database: String, applied: Int, required: Int) {
        self.database = database
        self.applied = applied
        self.required = required
    }

    public var description: String {
        "database \(database) has runtime migration \(applied), this build needs \(required): run reparto migrate"
    }
}

/// The database answers but Reparto's schema is not in it (`reparto migrate` was never run).
public struct SchemaMissingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database's name.
    public var database: String

    public init(database: String) { self.database = database }

    public var description: String { "database \(database) has no Reparto schema: run reparto migrate" }
}

/// Runs a long-lived service once its servers answer: `wait` runs first (typically
/// ``ServerWait/broker(_:logger:)`` and ``ServerWait/database(_:logger:)``), then `service`. Placed
/// in a `ServiceGroup` next to the metrics server, readiness answers 503 during the wait (the
/// service's health is down until it connects); SIGTERM during the wait ends it cleanly.
public struct StartupGate<Inner: Service>: Service {
    let service: Inner
    let wait: @Sendable () async throws -> Void

    /// `service`, started after `wait` returns.
    public init(_ service: Inner, after wait: @escaping @Sendable () async throws -> Void) {
        self.service = service
        self.wait = wait
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await wait() }
        } catch is CancellationError where Task.isShuttingDownGracefully {
            return
        }
        try await service.run()
    }
}
