import Foundation
import Jobs
import Logging
import Postgres
import RepartoKinds

/// ``InProcessCluster`` on the servers `cluster` names, once they answer.
struct LocalCluster {
    let cluster: ClusterOptions
    let workers: Int
    var concurrency = 2
    let namespace: String
    let assetsRoot: URL
    let logger: Logger

    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T? {
        let configuration = try cluster.configuration
        try Kinds.checkProviderSecrets(configuration)
        let amqp = try cluster.amqpConfiguration()
        try await cluster.serverWait(longRunning: true).broker(amqp, logger: logger)
        var local = InProcessCluster(configuration: configuration, amqp: amqp,
                                     coordinatorPostgres: try cluster.postgresConfiguration(applicationName: "reparto-coordinator"),
                                     workers: workers, namespace: namespace, assetsRoot: assetsRoot, logger: logger)
        local.concurrency = concurrency
        return try await cluster.withPostgres(maxConnections: 4 + workers, requireSchema: false, longRunning: true, logger: logger) {
            try await local.run(on: $0, body)
        }
    }
}
