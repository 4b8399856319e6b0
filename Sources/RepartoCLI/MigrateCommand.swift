import ArgumentParser
import Foundation
import Jobs
import Postgres
import RepartoKinds

/// `reparto migrate`: applies the SQL migrations that are missing, in order.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Apply database migrations.")

    @OptionGroup var cluster: ClusterOptions

    @Option(help: "Directory of NNNN_name.sql files (default: ./migrations or the installed ones).") var directory: String?

    func run() async throws {
        let logger = cluster.makeLogger("reparto.migrate")
        let migrations = try Migrator.load(directory: directory.map { URL(fileURLWithPath: $0) } ?? Kinds.migrationsDirectory(try cluster.configuration))
        let applied = try await cluster.withPostgres(maxConnections: 1, requireSchema: false, logger: logger) { postgres in
            try await postgres.withConnection { try Migrator.migrate(migrations, on: $0) }
        }
        if applied.isEmpty {
            print("database is up to date (\(migrations.count) migrations)")
        } else {
            for migration in applied { print("applied \(String(format: "%04d", migration.version))_\(migration.name)") }
        }
    }
}
