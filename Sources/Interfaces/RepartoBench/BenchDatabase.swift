import Composition
import Foundation
import RepartoConfiguration
import RepartoRuntime
import Logging
import Postgres
import ProductionKit

/// A migrated database of the benchmark's own, dropped at the end.
struct BenchDatabase {
    var configuration: PostgresConfiguration
    var postgres: PostgresClient
    var admin: PostgresConfiguration

    /// `postgres://user@host:port/database`, with the TLS and GSSAPI modes if set (the password
    /// travels in the environment).
    var url: String { configuration.childProcessURL }

    /// The same database seen from `namespace` (the `--namespace` the run's child processes get):
    /// row-level security shows a session only its namespace's jobs. Shut its pool down after use.
    func namespaced(_ namespace: String, logger: Logger) -> BenchDatabase {
        var configuration = self.configuration
        configuration.sessionSettings[ClusterSettings.namespaceSetting] = namespace
        return BenchDatabase(configuration: configuration, postgres: PostgresClient(configuration: configuration, maxConnections: 4, logger: logger),
                             admin: admin)
    }

    /// Creates and migrates a database named `reparto_bench_speech_<hex>` on the server `admin` reaches;
    /// with `namespace`, its pool sees that namespace (the one the run's child processes get).
    static func create(admin: PostgresConfiguration, namespace: String? = nil, logger: Logger) async throws -> BenchDatabase {
        let name = "reparto_bench_speech_\(SpeechClusterBench.hex(8))"
        let adminClient = PostgresClient(configuration: admin, maxConnections: 1, logger: logger)
        do {
            _ = try await adminClient.query("CREATE DATABASE \(name)")  // hex digits only: a safe identifier
            await adminClient.shutdown()
        } catch {
            await adminClient.shutdown()
            throw error
        }
        var configuration = admin
        configuration.database = name
        if let namespace { configuration.sessionSettings[ClusterSettings.namespaceSetting] = namespace }
        let postgres = PostgresClient(configuration: configuration, maxConnections: 4, logger: logger)
        let database = BenchDatabase(configuration: configuration, postgres: postgres, admin: admin)
        do {
            let lines = try Kinds.migrationLines(ConfigurationValues(environment: ProcessInfo.processInfo.environment))
            _ = try await postgres.withConnection { try Migrator.migrate(lines, on: $0) }
        } catch {
            await database.drop()
            throw error
        }
        return database
    }

    /// Drops the database (connections of its own included).
    func drop() async {
        await postgres.shutdown()
        let adminClient = PostgresClient(configuration: admin, maxConnections: 1)
        _ = try? await adminClient.query("DROP DATABASE IF EXISTS \(configuration.database) WITH (FORCE)")
        await adminClient.shutdown()
    }

    /// How many `generated_content` rows the jobs `jobIDs` inserted.
    func generatedContentRows(jobIDs: [UUID]) async throws -> Int {
        try await postgres.query("SELECT count(*) AS n FROM generated_content WHERE job_id = ANY($1::uuid[])", [jobIDs])
            .first?.int("n") ?? 0
    }
}
