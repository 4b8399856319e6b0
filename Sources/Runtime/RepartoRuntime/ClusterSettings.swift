import Foundation
import AMQP
import Postgres
import RepartoConfiguration

/// Where a cluster's servers are and how to log in, read from one ``ConfigurationValues`` view
/// (flags > environment > env file): what the CLI and any embedding service use to connect.
public enum ClusterSettings {
    public static let amqpURLVariable = "REPARTO_AMQP_URL"
    public static let databaseURLVariable = "REPARTO_DATABASE_URL"
    public static let amqpPasswordVariable = "REPARTO_AMQP_PASSWORD"
    public static let databasePasswordVariable = "REPARTO_DATABASE_PASSWORD"
    public static let namespaceVariable = "REPARTO_NAMESPACE"
    public static let waitVariable = "REPARTO_WAIT_FOR_SERVERS"
    public static let assetsVariable = "REPARTO_ASSETS"

    /// The shared asset volume: `REPARTO_ASSETS`, else `.reparto/assets`.
    public static func assetsRoot(_ values: ConfigurationValues) -> URL {
        URL(fileURLWithPath: values[assetsVariable] ?? ".reparto/assets")
    }

    /// A setting that is missing or malformed, in one line.
    public struct SettingError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// RabbitMQ: `REPARTO_AMQP_URL` with the password of `REPARTO_AMQP_PASSWORD[_FILE]` when set.
    public static func amqp(_ values: ConfigurationValues) throws -> AMQPConfiguration {
        guard let url = values[amqpURLVariable] else {
            throw SettingError(description: "REPARTO_AMQP_URL is not set (run scripts/services up, or pass --amqp-url)")
        }
        var configuration = try AMQPConfiguration(url: url)
        if let password = try values.secret(amqpPasswordVariable) { configuration.password = password.value }
        return configuration
    }

    /// PostgreSQL: `urlVariable` (default `REPARTO_DATABASE_URL`) with the password of
    /// `passwordVariable[_FILE]` when set, reported to the server as `applicationName`.
    public static func postgres(_ values: ConfigurationValues, applicationName: String = "reparto",
                                urlVariable: String = databaseURLVariable,
                                passwordVariable: String = databasePasswordVariable) throws -> PostgresConfiguration {
        guard let url = values[urlVariable] else {
            throw SettingError(description: "\(urlVariable) is not set (run scripts/services up, or pass --database-url)")
        }
        var configuration = try PostgresConfiguration(url: url)
        if let password = try values.secret(passwordVariable) { configuration.password = password.value }
        configuration.applicationName = applicationName
        let namespace = try self.namespace(values)
        if !namespace.isEmpty { configuration.sessionSettings[namespaceSetting] = namespace }
        return configuration
    }

    /// The session setting that scopes a connection to its namespace (migration 0021: row-level
    /// security shows a session only its namespace's jobs, productions and schedules).
    public static let namespaceSetting = "reparto.namespace"

    /// The session setting that shows a transaction every namespace's rows (`SET LOCAL … TO on`),
    /// for housekeeping that serves all of them, such as the asset sweep of a shared volume.
    public static let allNamespacesSetting = "reparto.all_namespaces"

    /// `REPARTO_NAMESPACE`, checked: letters, digits, `_`, `-` and `.`, at most 100 characters (it
    /// prefixes queue names and routing keys); none is the default namespace.
    public static func namespace(_ values: ConfigurationValues) throws -> String {
        let namespace = values[namespaceVariable] ?? ""
        let allowed = namespace.utf8.allSatisfy { (byte: UInt8) -> Bool in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                return true
            default:
                return false
            }
        }
        guard namespace.utf8.count <= 100, allowed else {
            throw SettingError(description: "\(namespaceVariable) must be letters, digits, '_', '-' or '.', at most 100 characters")
        }
        return namespace
    }

    /// How long to wait for the servers at start-up: `REPARTO_WAIT_FOR_SERVERS` (seconds or
    /// `forever`), else forever for a long-running service and 5 s for a one-shot command.
    public static func serverWait(_ values: ConfigurationValues, longRunning: Bool) throws -> ServerWait {
        guard let text = values[waitVariable] else { return ServerWait(limit: longRunning ? nil : 5) }
        guard let limit = ServerWait.limit(parsing: text) else {
            throw SettingError(description: "\(waitVariable) must be a number of seconds or 'forever', not '\(text)'")
        }
        return ServerWait(limit: limit)
    }
}
