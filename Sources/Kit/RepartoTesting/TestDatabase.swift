import Foundation
import Logging
import Postgres
import RepartoRuntime

/// A database of a test's own, created on a server and migrated with the lines given, dropped by
/// ``drop()``: what ``JobTester`` runs jobs against. Its sessions have a namespace of their own.
public struct TestDatabase: Sendable {
    /// Its name (`reparto_k_` and 8 hex digits), also its namespace.
    public let name: String
    public let configuration: PostgresConfiguration
    public let postgres: PostgresClient
    /// A folder of its own for the asset volume (removed by ``drop()``).
    public let assetsRoot: URL
    private let admin: PostgresConfiguration

    /// Creates the database on the server `admin` connects to and applies `lines` (all of them,
    /// in dependency order, as `reparto migrate` does).
    public static func create(admin: PostgresConfiguration, lines: [MigrationLine],
                              logger: Logger = Logger(label: "reparto.testing")) async throws -> TestDatabase {
        let name = "reparto_k_\(UUID().uuidString.prefix(8).lowercased())"
        let adminClient = PostgresClient(configuration: admin, maxConnections: 1, logger: logger)
        // The name is made of hex digits here: safe as an identifier.
        do { _ = try await adminClient.query("CREATE DATABASE \(name)") } catch {
            await adminClient.shutdown()
            throw error
        }
        await adminClient.shutdown()
        var configuration = admin
        configuration.database = name
        configuration.sessionSettings[ClusterSettings.namespaceSetting] = name
        let assetsRoot = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-k-assets-\(name)")
        let database = TestDatabase(name: name, configuration: configuration,
                                    postgres: PostgresClient(configuration: configuration, maxConnections: 4, logger: logger),
                                    assetsRoot: assetsRoot, admin: admin)
        do {
            try FileManager.default.createDirectory(at: assetsRoot, withIntermediateDirectories: true)
            _ = try await database.postgres.withConnection { try Migrator.migrate(lines, on: $0) }
        } catch {
            await database.drop()
            throw error
        }
        return database
    }

    /// Closes the pool, drops the database and removes the asset folder.
    public func drop() async {
        await postgres.shutdown()
        let adminClient = PostgresClient(configuration: admin, maxConnections: 1)
        _ = try? await adminClient.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        await adminClient.shutdown()
        try? FileManager.default.removeItem(at: assetsRoot)
    }
}
