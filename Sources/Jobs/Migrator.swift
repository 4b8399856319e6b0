import Crypto
import Foundation
import Postgres

/// One SQL migration file, `NNNN_name.sql`.
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String
    /// SHA-256 of the file, hex.
    public var checksum: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = SHA256.hash(data: Data(sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// Errors of loading and applying migrations.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    case directoryNotFound(String)
    case badFileName(String)
    case duplicateVersion(Int)
    case edited(version: Int, name: String)
    case unknownApplied(version: Int, name: String)

    public var description: String {
        switch self {
        case .directoryNotFound(let path): return "migrations directory not found: \(path)"
        case .badFileName(let name): return "migration file name must be NNNN_name.sql: \(name)"
        case .duplicateVersion(let version): return "two migrations have version \(version)"
        case .edited(let version, let name):
            return "migration \(version)_\(name) was edited after it was applied (checksum differs); add a new migration instead"
        case .unknownApplied(let version, let name):
            return "the database has migration \(version)_\(name), which this build does not know (a newer build migrated it?)"
        }
    }
}

/// Applies migrations in order, each in its own transaction, recorded with its checksum in
/// `schema_migrations`; a session advisory lock serializes concurrent migrators.
public enum Migrator {
    static let lockKey: Int64 = 0x7265_7061_7274_6d // "repartm"

    /// Reads `NNNN_name.sql` files from a directory, sorted by version.
    public static func load(directory: URL) throws -> [Migration] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            throw MigrationError.directoryNotFound(directory.path)
        }
        var migrations: [Migration] = []
        for file in names.sorted() where file.hasSuffix(".sql") {
            let stem = file.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]),
                  underscore != stem.startIndex else { throw MigrationError.badFileName(file) }
            let sql = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            migrations.append(Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        let versions = migrations.map(\.version)
        if let duplicate = versions.first(where: { v in versions.filter { $0 == v }.count > 1 }) {
            throw MigrationError.duplicateVersion(duplicate)
        }
        return migrations.sorted { $0.version < $1.version }
    }

    /// Applies what is missing; returns the migrations applied now.
    @available(*, noasync)
    public static func migrate(_ migrations: [Migration], on connection: PostgresConnection) throws -> [Migration] {
        try connection.query("SELECT pg_advisory_lock($1)", [lockKey])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [lockKey]) }
        try connection.execute("""
            SET client_min_messages = warning;
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            """)
        var applied: [Int: (name: String, checksum: String)] = [:]
        for row in try connection.query("SELECT version, name, checksum FROM schema_migrations") {
            if let version = row.int("version") { applied[version] = (row.string("name") ?? "", row.string("checksum") ?? "") }
        }
        let known = Dictionary(migrations.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        for (version, record) in applied.sorted(by: { $0.key < $1.key }) {
            guard let migration = known[version] else { throw MigrationError.unknownApplied(version: version, name: record.name) }
            if migration.checksum != record.checksum { throw MigrationError.edited(version: version, name: migration.name) }
        }
        var done: [Migration] = []
        for migration in migrations where applied[migration.version] == nil {
            try connection.transaction { connection in
                try connection.execute(migration.sql)
                try connection.query("INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                                     [migration.version, migration.name, migration.checksum])
            }
            done.append(migration)
        }
        return done
    }

    /// Where the migrations are: `$REPARTO_MIGRATIONS`, `./migrations`, next to the executable
    /// (`../share/reparto/migrations`), or the source tree this binary was built from.
    public static func defaultDirectory() -> URL {
        let fileManager = FileManager.default
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["REPARTO_MIGRATIONS"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        candidates.append(URL(fileURLWithPath: fileManager.currentDirectoryPath).appendingPathComponent("migrations"))
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        candidates.append(executable.deletingLastPathComponent().appendingPathComponent("../share/reparto/migrations").standardized)
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../migrations").standardized)
        return candidates.first { fileManager.fileExists(atPath: $0.appendingPathComponent("0001_jobs.sql").path) } ?? candidates[0]
    }
}
