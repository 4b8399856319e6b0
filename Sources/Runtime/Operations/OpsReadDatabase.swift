import Postgres
import RepartoConfiguration
import RepartoRuntime

/// Where the operations reads go: the dashboard and `reparto status` read the `ops.*` views from
/// `REPARTO_DASHBOARD_DATABASE_URL` when it is set (a streaming replica, the read-only
/// `reparto_dashboard` role, or both), with the password of `REPARTO_DASHBOARD_DATABASE_PASSWORD[_FILE]`;
/// otherwise from the cluster's `REPARTO_DATABASE_URL`, as every other command.
///
/// Either way the connection starts with the same session settings as the cluster's (the
/// namespace, ``ClusterSettings/namespaceSetting``), so row-level security shows it the same rows.
/// What reads through it only reads: `SELECT` on the views, `now()`, a read-only transaction — what
/// a hot standby accepts. Whatever writes or listens (cancel, retry, enqueue, `reparto watch`'s
/// `LISTEN`, which a standby refuses) uses the cluster's database.
///
/// ```swift
/// let database = try OpsReadDatabase.configuration(values, applicationName: "reparto-status")
/// ```
public enum OpsReadDatabase {
    /// The variable that moves the reads (``OperationsEndpoints/dashboardDatabaseURLVariable``).
    public static let urlVariable = OperationsEndpoints.dashboardDatabaseURLVariable
    /// Its password (``OperationsEndpoints/dashboardDatabasePasswordVariable``, or its `_FILE` form).
    public static let passwordVariable = OperationsEndpoints.dashboardDatabasePasswordVariable

    /// True when the reads go to `REPARTO_DASHBOARD_DATABASE_URL` rather than the cluster's database.
    public static func isSeparate(_ values: ConfigurationValues) -> Bool {
        values[urlVariable] != nil
    }

    /// The database the operations views are read from, reported to the server as `applicationName`.
    /// - Throws: ``ConfigurationError/malformedURL(variable:reason:)`` naming the variable when its
    ///   URL cannot be parsed (never repeating it: it may carry a password); the cluster settings'
    ///   errors (a missing URL, an unreadable password file, a bad namespace).
    public static func configuration(_ values: ConfigurationValues, applicationName: String) throws -> PostgresConfiguration {
        let variables = isSeparate(values)
            ? (url: urlVariable, password: passwordVariable)
            : (url: ClusterSettings.databaseURLVariable, password: ClusterSettings.databasePasswordVariable)
        do {
            return try ClusterSettings.postgres(values, applicationName: applicationName, urlVariable: variables.url,
                                                passwordVariable: variables.password)
        } catch let error as PostgresError where error.kind == .configuration {
            // The parser's messages name the part that is wrong, never the URL itself.
            throw ConfigurationError.malformedURL(variable: variables.url, reason: error.message)
        }
    }
}
