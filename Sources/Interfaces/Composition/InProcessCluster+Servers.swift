import Foundation
import RepartoRuntime
import Logging
import Postgres
import RepartoConfiguration
import Threading

extension InProcessCluster {
    /// Runs `body` on an in-process cluster over the servers `configuration` names
    /// (``ClusterSettings``), once they answer: the providers' secrets are checked first, then the
    /// broker and the database are waited for as a long-running command does, and a pool of
    /// 4 + `workers` connections is opened for the workers and `body` and shut down afterwards.
    /// The result is nil when SIGINT or SIGTERM ended the run first (see ``run(on:_:)``).
    public static func run<T: Sendable>(configuration: ConfigurationValues, workers: Int, concurrency: Int = 2, namespace: String,
                                        assetsRoot: URL, logger: Logger,
                                        _ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T? {
        try Kinds.checkProviderSecrets(configuration)
        let amqp = try ClusterSettings.amqp(configuration)
        let wait = try ClusterSettings.serverWait(configuration, longRunning: true)
        try await wait.broker(amqp, logger: logger)
        var local = InProcessCluster(configuration: configuration, amqp: amqp,
                                     coordinatorPostgres: try ClusterSettings.postgres(configuration, applicationName: "reparto-coordinator"),
                                     workers: workers, namespace: namespace, assetsRoot: assetsRoot, logger: logger)
        local.concurrency = concurrency
        let postgres = PostgresClient(configuration: try ClusterSettings.postgres(configuration), maxConnections: 4 + workers, logger: logger)
        return try await withCleanup {
            _ = try await wait.database(postgres, logger: logger)
            return try await local.run(on: postgres, body)
        } cleanup: {
            await postgres.shutdown()
        }
    }
}
