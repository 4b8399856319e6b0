import AMQP
import ArgumentParser
import Foundation
import Jobs
import Logging
import Operations
import Postgres

/// Where the cluster is: RabbitMQ and PostgreSQL URLs, from flags, the environment, or an env file.
///
/// Passwords never travel on the command line: a URL given as a flag must not contain one; it
/// comes from `REPARTO_AMQP_PASSWORD` / `REPARTO_DATABASE_PASSWORD`, from the file that
/// `REPARTO_AMQP_PASSWORD_FILE` / `REPARTO_DATABASE_PASSWORD_FILE` names (Docker and Kubernetes
/// secrets), from the URL in the environment, or from the env file (`.reparto/env`, written by
/// `scripts/services up`).
struct ClusterOptions: ParsableArguments {
    @Option(name: .long, help: "RabbitMQ URL without password (default: $REPARTO_AMQP_URL).")
    var amqpURL: String?

    @Option(name: .long, help: "PostgreSQL URL without password (default: $REPARTO_DATABASE_URL).")
    var databaseURL: String?

    @Option(name: .long, help: "File of KEY=VALUE lines read when a variable is not set (default: .reparto/env if present).")
    var envFile: String?

    @Option(name: .long, help: "Queue namespace, so several clusters can share a broker (default: $REPARTO_NAMESPACE or none).")
    var namespace: String?

    var resolvedNamespace: String { namespace ?? environment["REPARTO_NAMESPACE"] ?? "" }

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Option(name: .long, help: "Log format: text or json, one object per line (default: $REPARTO_LOG_FORMAT or text).")
    var logFormat: String?

    /// The log format from `--log-format`, `REPARTO_LOG_FORMAT`, or text.
    var resolvedLogFormat: LogFormat {
        get throws {
            let name = logFormat ?? environment[OperationsEndpoints.logFormatVariable] ?? LogFormat.text.rawValue
            guard let format = LogFormat(rawValue: name) else {
                throw CLIError("unknown log format '\(name)' (use text or json)")
            }
            return format
        }
    }

    func validate() throws {
        for (flag, value) in [("--amqp-url", amqpURL), ("--database-url", databaseURL)] {
            if let value, let components = URLComponents(string: value), components.password != nil {
                throw ValidationError("\(flag) must not contain a password: set it in REPARTO_AMQP_PASSWORD / REPARTO_DATABASE_PASSWORD or the env file")
            }
        }
        if Logger.Level(rawValue: logLevel) == nil { throw ValidationError("unknown log level '\(logLevel)'") }
        do {
            _ = try resolvedLogFormat
        } catch {
            throw ValidationError("\(error)")
        }
    }

    var environment: EnvironmentValues { EnvironmentValues(envFile: envFile) }

    func amqpConfiguration() throws -> AMQPConfiguration {
        let env = environment
        guard let url = amqpURL ?? env["REPARTO_AMQP_URL"] else {
            throw CLIError("REPARTO_AMQP_URL is not set (run scripts/services up, or pass --amqp-url)")
        }
        var configuration = try AMQPConfiguration(url: url)
        if let password = try SecretValue.resolve(variable: "REPARTO_AMQP_PASSWORD",
                                                  fileVariable: OperationsEndpoints.amqpPasswordFileVariable,
                                                  lookup: { env[$0] }) {
            configuration.password = password
        }
        return configuration
    }

    func postgresConfiguration(applicationName: String = "reparto") throws -> PostgresConfiguration {
        let env = environment
        guard let url = databaseURL ?? env["REPARTO_DATABASE_URL"] else {
            throw CLIError("REPARTO_DATABASE_URL is not set (run scripts/services up, or pass --database-url)")
        }
        var configuration = try PostgresConfiguration(url: url)
        if let password = try SecretValue.resolve(variable: "REPARTO_DATABASE_PASSWORD",
                                                  fileVariable: OperationsEndpoints.databasePasswordFileVariable,
                                                  lookup: { env[$0] }) {
            configuration.password = password
        }
        configuration.applicationName = applicationName
        return configuration
    }

    /// The dashboard's database: `REPARTO_DASHBOARD_DATABASE_URL` (normally the read-only
    /// `reparto_dashboard` role) with `REPARTO_DASHBOARD_DATABASE_PASSWORD[_FILE]`, or else the
    /// cluster's database as ``postgresConfiguration(applicationName:)`` resolves it.
    func dashboardPostgresConfiguration() throws -> PostgresConfiguration {
        let env = environment
        guard let url = env[OperationsEndpoints.dashboardDatabaseURLVariable] else {
            return try postgresConfiguration(applicationName: "reparto-dashboard")
        }
        var configuration = try PostgresConfiguration(url: url)
        if let password = try SecretValue.resolve(variable: OperationsEndpoints.dashboardDatabasePasswordVariable,
                                                  fileVariable: OperationsEndpoints.dashboardDatabasePasswordFileVariable,
                                                  lookup: { env[$0] }) {
            configuration.password = password
        }
        configuration.applicationName = "reparto-dashboard"
        return configuration
    }

    /// Bootstraps logging with `--log-level` and `--log-format` (once per process) and returns a logger.
    func makeLogger(_ label: String) -> Logger {
        LoggingSetup.bootstrap(level: Logger.Level(rawValue: logLevel) ?? .info, format: (try? resolvedLogFormat) ?? .text)
        return Logger(label: label)
    }

    /// Runs `body` with a connected pool and shuts the pool down afterwards, success or not.
    func withPostgres<T>(maxConnections: Int = 2, requireSchema: Bool = true, logger: Logger,
                         _ body: (PostgresClient) async throws -> T) async throws -> T {
        let postgres = try await connectPostgres(maxConnections: maxConnections, requireSchema: requireSchema, logger: logger)
        do {
            let value = try await body(postgres)
            await postgres.shutdown()
            return value
        } catch {
            await postgres.shutdown()
            throw error
        }
    }

    /// A pool that fails fast with one clear line when the database cannot be reached.
    /// With `requireSchema`, a database that was never migrated is reported as such.
    func connectPostgres(maxConnections: Int = 4, requireSchema: Bool = true, logger: Logger) async throws -> PostgresClient {
        let client = PostgresClient(configuration: try postgresConfiguration(), maxConnections: maxConnections, logger: logger)
        do {
            let migrated = try await client.query("SELECT to_regclass('public.jobs') IS NOT NULL AS ok").first?.bool("ok") ?? false
            if requireSchema && !migrated {
                throw CLIError("database \(client.configuration.database) has no Reparto schema: run reparto migrate")
            }
        } catch {
            await client.shutdown()
            throw error
        }
        return client
    }
}

/// Environment variables, with an env file as fallback.
struct EnvironmentValues {
    private let file: [String: String]

    init(envFile: String?) {
        let path = envFile ?? ".reparto/env"
        var values: [String: String] = [:]
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                guard let eq = line.firstIndex(of: "=") else { continue }
                values[String(line[..<eq]).trimmingCharacters(in: .whitespaces)] = String(line[line.index(after: eq)...])
            }
        }
        file = values
    }

    subscript(name: String) -> String? {
        if let value = ProcessInfo.processInfo.environment[name], !value.isEmpty { return value }
        return file[name]
    }
}

/// A failure the CLI reports as one line (ArgumentParser prints `Error: <description>`).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
