import AMQP
import ArgumentParser
import Foundation
import RepartoRuntime
import Logging
import Operations
import Postgres
import RepartoConfiguration
import Threading

/// Where the cluster is and how commands are configured: flags, else the environment, else the
/// env file (``configuration``, one ``ConfigurationValues`` view that every component reads).
///
/// Passwords never travel on the command line: a URL given as a flag must not contain one; it
/// comes from `REPARTO_AMQP_PASSWORD` / `REPARTO_DATABASE_PASSWORD` or the file their `_FILE`
/// form names (Docker and Kubernetes secrets; both set is an error), from the URL in the
/// environment, or from the env file (`.reparto/env`, written by `scripts/services up`).
public struct ClusterOptions: ParsableArguments {
    @Option(name: .long, help: "RabbitMQ URL without password (default: $REPARTO_AMQP_URL).") public var amqpURL: String?
    @Option(name: .long, help: "PostgreSQL URL without password (default: $REPARTO_DATABASE_URL).") public var databaseURL: String?
    @Option(name: .long, help: "File of KEY=VALUE lines read when a variable is not set (default: .reparto/env if present).") public var envFile: String?
    @Option(name: .long, help: "Queue namespace, so several clusters can share a broker (default: $REPARTO_NAMESPACE or none).")
    public var namespace: String?

    /// Creates the options (ArgumentParser fills them in).
    public init() {}

    /// The namespace from `--namespace`, `REPARTO_NAMESPACE` (environment or env file), or none.
    public var resolvedNamespace: String {
        get throws { try ClusterSettings.namespace(configuration) }
    }

    @Option(name: .long, help: "Seconds to wait for RabbitMQ and PostgreSQL at start-up, or 'forever' (default: $REPARTO_WAIT_FOR_SERVERS, else forever for worker, coordinator and run, 5 for other commands).")
    public var waitForServers: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.") public var logLevel: String = "info"
    @Option(name: .long, help: "Log format: text or json, one object per line (default: $REPARTO_LOG_FORMAT or text).") public var logFormat: String?

    /// The log format from `--log-format`, `REPARTO_LOG_FORMAT`, or text.
    public var resolvedLogFormat: LogFormat {
        get throws { try LogFormat(setting: configuration[OperationsEndpoints.logFormatVariable]) }
    }

    /// Refuses a password in a URL flag, an unknown log level or format, and a bad wait.
    public func validate() throws {
        do {
            try ConfigurationValues.refusePassword(inURL: amqpURL, flag: "--amqp-url", passwordVariable: Self.amqpPasswordVariable)
            try ConfigurationValues.refusePassword(inURL: databaseURL, flag: "--database-url", passwordVariable: Self.databasePasswordVariable)
        } catch {
            throw ValidationError(error.description)
        }
        if Logger.Level(rawValue: logLevel) == nil { throw ValidationError("unknown log level '\(logLevel)'") }
        if let waitForServers, ServerWait.limit(parsing: waitForServers) == nil {
            throw ValidationError("--wait-for-servers must be a number of seconds or 'forever'")
        }
        // An env file that cannot be read is reported by run() as one line, without the usage.
        guard (try? configuration) != nil else { return }
        do {
            _ = try resolvedLogFormat
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The variables the flags stand for (``ClusterSettings``'s).
    public static let amqpURLVariable = ClusterSettings.amqpURLVariable
    public static let databaseURLVariable = ClusterSettings.databaseURLVariable
    public static let amqpPasswordVariable = ClusterSettings.amqpPasswordVariable
    public static let databasePasswordVariable = ClusterSettings.databasePasswordVariable
    public static let namespaceVariable = ClusterSettings.namespaceVariable
    public static let waitVariable = ClusterSettings.waitVariable

    /// See ``ClusterSettings/serverWait(_:longRunning:)``.
    public func serverWait(longRunning: Bool) throws -> ServerWait {
        try ClusterSettings.serverWait(configuration, longRunning: longRunning)
    }

    /// The merged view every command reads: these flags (as the variables they stand for), else
    /// the process environment, else `--env-file` (which must be readable) or `.reparto/env`.
    public var configuration: ConfigurationValues {
        get throws {
            try ConfigurationValues.load(flags: [
                Self.amqpURLVariable: amqpURL,
                Self.databaseURLVariable: databaseURL,
                Self.namespaceVariable: namespace,
                Self.waitVariable: waitForServers,
                OperationsEndpoints.logFormatVariable: logFormat,
            ], envFile: envFile)
        }
    }

    /// The flags a child `reparto` process (a benchmark's worker) needs to reach the same servers
    /// with the same configuration: `--env-file` and `--amqp-url` when given.
    public var childArguments: [String] {
        (envFile.map { ["--env-file", $0] } ?? []) + (amqpURL.map { ["--amqp-url", $0] } ?? [])
    }

    /// See ``ClusterSettings/amqp(_:)``.
    public func amqpConfiguration() throws -> AMQPConfiguration { try ClusterSettings.amqp(configuration) }

    /// See ``ClusterSettings/postgres(_:applicationName:urlVariable:passwordVariable:)``.
    public func postgresConfiguration(applicationName: String = "reparto") throws -> PostgresConfiguration {
        try ClusterSettings.postgres(configuration, applicationName: applicationName)
    }

    /// The database the operations views are read from (the dashboard, `reparto status`):
    /// `REPARTO_DASHBOARD_DATABASE_URL` (a streaming replica or the read-only `reparto_dashboard`
    /// role) with `REPARTO_DASHBOARD_DATABASE_PASSWORD[_FILE]`, or else the cluster's. See ``OpsReadDatabase``.
    public func dashboardPostgresConfiguration(applicationName: String = "reparto-dashboard") throws -> PostgresConfiguration {
        try OpsReadDatabase.configuration(try configuration, applicationName: applicationName)
    }

    /// Bootstraps logging with `--log-level` and `--log-format` (once per process) and returns a logger.
    public func makeLogger(_ label: String) -> Logger {
        LoggingSetup.bootstrap(level: Logger.Level(rawValue: logLevel) ?? .info, format: (try? resolvedLogFormat) ?? .text)
        return Logger(label: label)
    }

    /// Runs `body` with a connected pool and shuts the pool down afterwards, success or not.
    /// - Parameter database: where to connect (nil: the cluster's database, ``postgresConfiguration(applicationName:)``).
    public func withPostgres<T>(maxConnections: Int = 2, requireSchema: Bool = true, longRunning: Bool = false,
                                database: PostgresConfiguration? = nil, logger: Logger,
                         _ body: (PostgresClient) async throws -> T) async throws -> T {
        let postgres = try await connectPostgres(maxConnections: maxConnections, requireSchema: requireSchema,
                                                 longRunning: longRunning, database: database, logger: logger)
        return try await withCleanup { try await body(postgres) } cleanup: { await postgres.shutdown() }
    }

    /// Runs `body` with a ``JobPublisher`` for the cluster's broker and namespace, and stops it
    /// afterwards (waiting for the confirms in flight), success or not. Without a broker URL
    /// (`REPARTO_AMQP_URL`, `--amqp-url`), `body` gets nil: the relays publish.
    public func withJobPublisher<T>(logger: Logger, _ body: (JobPublisher?) async throws -> T) async throws -> T {
        guard try configuration[Self.amqpURLVariable] != nil else { return try await body(nil) }
        let publisher = JobPublisher(amqp: try amqpConfiguration(), namespace: try resolvedNamespace, logger: logger)
        return try await withCleanup { try await body(publisher) } cleanup: { await publisher.stop() }
    }

    /// Runs `body` with a ``JobClient`` on a small pool, logging as `label`.
    public func withJobClient<T>(_ label: String, _ body: (JobClient) async throws -> T) async throws -> T {
        try await withPostgres(logger: makeLogger(label)) { try await body(JobClient(postgres: $0)) }
    }

    /// A pool, once the database answers (waiting as ``serverWait(longRunning:)`` says, then one
    /// clear line). With `requireSchema`, a database that was never migrated is reported as such.
    /// - Parameter database: where to connect (nil: the cluster's database, ``postgresConfiguration(applicationName:)``).
    public func connectPostgres(maxConnections: Int = 4, requireSchema: Bool = true, longRunning: Bool = false,
                         database: PostgresConfiguration? = nil, logger: Logger) async throws -> PostgresClient {
        let client = PostgresClient(configuration: try database ?? postgresConfiguration(), maxConnections: maxConnections,
                                    logger: logger)
        do {
            let wait = try serverWait(longRunning: longRunning)
            if requireSchema { try await wait.migratedDatabase(client, logger: logger) } else { _ = try await wait.database(client, logger: logger) }
        } catch {
            await client.shutdown()
            throw error
        }
        return client
    }
}

/// `--priority low|normal|high`, for every command that enqueues.
extension JobPriority: ExpressibleByArgument {}
