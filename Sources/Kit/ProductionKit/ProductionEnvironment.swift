import Foundation
import Postgres
import RepartoConfiguration
import RepartoRuntime

/// What a production type's handlers and clients get from the process that runs them.
public struct ProductionEnvironment: Sendable {
    /// Root of the shared asset volume (`REPARTO_ASSETS`).
    public var assetsRoot: URL
    /// The merged configuration (flags > environment > env file): provider keys and URLs.
    public var configuration: ConfigurationValues
    /// The worker's (or command's) pool; nil where there is no database (a command that only
    /// validates parameters): handlers that need one fail their jobs with a reason.
    public var postgres: PostgresClient?

    public init(assetsRoot: URL, configuration: ConfigurationValues, postgres: PostgresClient? = nil) {
        (self.assetsRoot, self.configuration, self.postgres) = (assetsRoot, configuration, postgres)
    }

    /// The asset volume `configuration` names (``ClusterSettings/assetsRoot(_:)``).
    public init(configuration: ConfigurationValues, postgres: PostgresClient? = nil) {
        self.init(assetsRoot: ClusterSettings.assetsRoot(configuration), configuration: configuration, postgres: postgres)
    }

    /// The pool, or the permanent failure of a `kind` that cannot run without a database.
    public func database(for kind: String) throws(JobError) -> PostgresClient {
        guard let postgres else { throw JobError.permanent("\(kind) needs the database (this process has none)") }
        return postgres
    }
}
