import ArgumentParser
import Foundation
import RepartoRuntime
import Postgres
import Composition

/// `reparto migrate`: applies the SQL migrations that are missing, line by line in dependency
/// order (the runtime's, the capabilities', each production type's).
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Apply database migrations.")

    @OptionGroup var cluster: ClusterOptions

    @Option(help: "Directory of the runtime's NNNN_name.sql files (default: ./migrations or the installed ones).") var directory: String?

    func run() async throws {
        let logger = cluster.makeLogger("reparto.migrate")
        let lines = try Kinds.migrationLines(try cluster.configuration, runtimeDirectory: directory.map { URL(fileURLWithPath: $0) })
        let applied = try await cluster.withPostgres(maxConnections: 1, requireSchema: false, logger: logger) { postgres in
            try await postgres.withConnection { try Migrator.migrate(lines, on: $0) }
        }
        if applied.isEmpty {
            let counts = lines.map { "\($0.name) \($0.migrations.count)" }.joined(separator: ", ")
            print("database is up to date (\(counts))")
        } else {
            for (line, migration) in applied { print("applied \(line) \(String(format: "%04d", migration.version))_\(migration.name)") }
        }
    }
}
