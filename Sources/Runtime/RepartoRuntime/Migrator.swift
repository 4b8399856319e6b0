import Crypto
import Foundation
import Postgres

/// One SQL migration of a line, `NNNN_name.sql`.
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String
    /// SHA-256 of the SQL (UTF-8), hex.
    public var checksum: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = SHA256.hash(data: Data(sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// `0007_casting_evidence.sql`.
    public var fileName: String { Migration.fileName(version: version, name: name) }

    static func fileName(version: Int, name: String) -> String {
        let digits = String(version)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "_" + name + ".sql"
    }

    /// The version and name of `NNNN_name.sql` (digits, an underscore, a name, `.sql`), or nil.
    static func parse(fileName: String) -> (version: Int, name: String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_"), underscore != stem.startIndex,
              stem[..<underscore].allSatisfy({ $0.isASCII && $0.isNumber }),
              let version = Int(stem[..<underscore]) else { return nil }
        let name = stem[stem.index(after: underscore)...]
        guard !name.isEmpty else { return nil }
        return (version, String(name))
    }
}

/// An ordered sequence of migrations owned by one part of the code (River's "migration lines"):
/// the job runtime, a capability (speech, generation) or a production type (table read, book
/// import, analysis). A line's versions count from 1 on their own; a line depends on the lines
/// whose tables, views or functions its SQL (or its code) uses, and a database applies all of a
/// line before any line that depends on it.
public struct MigrationLine: Sendable, Equatable {
    /// The runtime's own line (jobs, productions, limits, schedules, the ops views): the top-level `migrations/`.
    public static let runtime = "runtime"
    public let name: String
    /// The lines this one needs applied first.
    public let dependsOn: [String]
    /// By version, ascending.
    public let migrations: [Migration]

    /// - Throws: ``MigrationError/duplicateVersion(line:version:)`` when two migrations share a version.
    public init(name: String, dependsOn: [String] = [], migrations: [Migration]) throws(MigrationError) {
        var seen = Set<Int>()
        for migration in migrations.sorted(by: { $0.version < $1.version }) where !seen.insert(migration.version).inserted {
            throw .duplicateVersion(line: name, version: migration.version)
        }
        self.name = name
        self.dependsOn = dependsOn
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Reads the line's `NNNN_name.sql` files from a directory (other files, such as a README, are
    /// ignored).
    public static func load(name: String, dependsOn: [String] = [], directory: URL) throws(MigrationError) -> MigrationLine {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            throw .directoryNotFound(line: name, path: directory.path)
        }
        var migrations: [Migration] = []
        for file in names.sorted() where file.hasSuffix(".sql") {
            guard let parsed = Migration.parse(fileName: file) else { throw .badFileName(line: name, file: file) }
            let sql: String
            do {
                sql = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            } catch {
                throw .unreadable(line: name, file: file)
            }
            migrations.append(Migration(version: parsed.version, name: parsed.name, sql: sql))
        }
        return try MigrationLine(name: name, dependsOn: dependsOn, migrations: migrations)
    }

    /// A line whose SQL is compiled into a module: `file` is the file's name (`0001_documents.sql`;
    /// a path is reduced to its last component), `bytes` its UTF-8 contents.
    public static func embedded(
        name: String, dependsOn: [String] = [], files: [(file: String, bytes: [UInt8])]
    ) throws(MigrationError) -> MigrationLine {
        var migrations: [Migration] = []
        for (file, bytes) in files {
            let fileName = file.split(separator: "/").last.map(String.init) ?? file
            guard let parsed = Migration.parse(fileName: fileName) else { throw .badFileName(line: name, file: fileName) }
            guard let sql = String(data: Data(bytes), encoding: .utf8) else { throw .unreadable(line: name, file: fileName) }
            migrations.append(Migration(version: parsed.version, name: parsed.name, sql: sql))
        }
        return try MigrationLine(name: name, dependsOn: dependsOn, migrations: migrations)
    }
}

/// A row of `reparto_migrations`: a line's migration as the database applied it.
public struct AppliedMigration: Sendable, Equatable {
    public var line: String
    public var version: Int
    public var name: String
    public var checksum: String

    public init(line: String, version: Int, name: String, checksum: String) {
        (self.line, self.version, self.name, self.checksum) = (line, version, name, checksum)
    }
}

/// Errors of loading, ordering and applying migration lines.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    case directoryNotFound(line: String, path: String)
    case badFileName(line: String, file: String)
    case unreadable(line: String, file: String)
    case duplicateVersion(line: String, version: Int)
    case duplicateLine(String)
    case edited(line: String, version: Int, name: String)
    case unknownApplied(line: String, version: Int, name: String)
    case unknownDependency(line: String, dependency: String)
    case dependencyCycle([String])
    /// `schema_migrations` (the global migrator's table) records an old migration with another
    /// checksum than the old file had: it applied an edited file, and its pieces cannot be trusted.
    case legacyEdited(version: Int, name: String)

    public var description: String {
        switch self {
        case .directoryNotFound(let line, let path):
            return "migrations directory of line \(line) not found: \(path)"
        case .badFileName(let line, let file):
            return "migration file name must be NNNN_name.sql (line \(line)): \(file)"
        case .unreadable(let line, let file):
            return "migration \(line)/\(file) cannot be read as UTF-8 text"
        case .duplicateVersion(let line, let version):
            return "two migrations of line \(line) have version \(version)"
        case .duplicateLine(let line):
            return "two migration lines are named \(line)"
        case .edited(let line, let version, let name):
            return "migration \(line)/\(Migration.fileName(version: version, name: name)) was edited after it was applied "
                + "(checksum differs); add a new migration to line \(line) instead"
        case .unknownApplied(let line, let version, let name) where line == Migrator.legacyTable:
            return "the database's \(Migrator.legacyTable) has migration \(Migration.fileName(version: version, name: name)), "
                + "which this build's legacy map does not know (a newer build migrated it?)"
        case .unknownApplied(let line, let version, let name):
            return "the database has migration \(line)/\(Migration.fileName(version: version, name: name)), which line \(line) "
                + "of this build does not have (a newer build migrated it?)"
        case .unknownDependency(let line, let dependency):
            return "migration line \(line) depends on line \(dependency), which this build does not have"
        case .dependencyCycle(let lines):
            return "migration lines depend on each other in a cycle: \(lines.joined(separator: " → "))"
        case .legacyEdited(let version, let name):
            return "the database's \(Migrator.legacyTable) records \(Migration.fileName(version: version, name: name)) with "
                + "a checksum other than that migration's (an edited copy was applied?), so its pieces cannot be marked as applied"
        }
    }
}

/// Applies migration lines: all of a line before the lines that depend on it, each migration in
/// its own transaction, recorded with its line, version and checksum in `reparto_migrations`; a
/// session advisory lock serializes concurrent migrators.
///
/// A database of the global migrator (`schema_migrations`, versions 1…21) is adopted once: the
/// pieces its old versions became (``LegacyMigrations``) are recorded as applied, and the old
/// table is renamed to `schema_migrations_legacy` (a line the adopting build lacked is adopted
/// from it when a later build first brings that line).
public enum Migrator {
    static let lockKey: Int64 = 0x7265_7061_7274_6d // "repartm"
    /// Where lines record what they applied.
    public static let table = "reparto_migrations"
    /// The global migrator's table, adopted once.
    public static let legacyTable = "schema_migrations"
    /// What the global migrator's table is renamed to once adopted.
    public static let adoptedLegacyTable = "schema_migrations_legacy"
    /// The runtime line's first migration: ``defaultDirectory()`` looks for it.
    static let runtimeProbe = "0001_jobs.sql"

    // MARK: ordering

    /// The lines in dependency order: every line after the lines it depends on; lines that do not
    /// depend on each other keep the order given.
    ///
    /// - Throws: ``MigrationError/duplicateLine(_:)``, ``MigrationError/unknownDependency(line:dependency:)``
    ///   (a line depends on one not given), ``MigrationError/dependencyCycle(_:)``.
    public static func ordered(_ lines: [MigrationLine]) throws(MigrationError) -> [MigrationLine] {
        var names = Set<String>()
        for line in lines where !names.insert(line.name).inserted { throw .duplicateLine(line.name) }
        for line in lines {
            for dependency in line.dependsOn where !names.contains(dependency) {
                throw .unknownDependency(line: line.name, dependency: dependency)
            }
        }
        var placed = Set<String>()
        var result: [MigrationLine] = []
        var remaining = lines
        while !remaining.isEmpty {
            guard let next = remaining.firstIndex(where: { $0.dependsOn.allSatisfy(placed.contains) }) else {
                throw .dependencyCycle(cycle(in: remaining))
            }
            let line = remaining.remove(at: next)
            placed.insert(line.name)
            result.append(line)
        }
        return result
    }

    /// One cycle among lines none of which can be placed (each depends on another of them):
    /// `["a", "b", "a"]`.
    private static func cycle(in lines: [MigrationLine]) -> [String] {
        let byName = Dictionary(lines.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var path: [String] = []
        var current = lines[0].name
        while !path.contains(current) {
            path.append(current)
            guard let next = byName[current]?.dependsOn.first(where: { byName[$0] != nil }) else { return path }
            current = next
        }
        return Array(path[path.firstIndex(of: current)!...]) + [current]
    }

    // MARK: the decisions (pure)

    /// What adopting a database of the global migrator records as applied: for every old version
    /// `applied` (the rows of `schema_migrations`), each piece it became whose line is among
    /// `lines`, with that line's current migration (its name and checksum). Pieces of lines not
    /// given (a production type this build leaves out) are skipped.
    ///
    /// - Throws: ``MigrationError/unknownApplied(line:version:name:)`` for an old version not in
    ///   `map` (line ``legacyTable``) or a piece its line does not have;
    ///   ``MigrationError/legacyEdited(version:name:)`` when the recorded checksum is not the old file's.
    public static func legacyAdoption(
        applied: [(version: Int, name: String, checksum: String)],
        map: [LegacyMigrations.Entry] = LegacyMigrations.entries,
        lines: [MigrationLine]
    ) throws(MigrationError) -> [(line: String, migration: Migration)] {
        let entries = Dictionary(map.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        let byName = Dictionary(lines.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var marks: [(line: String, migration: Migration)] = []
        for old in applied.sorted(by: { $0.version < $1.version }) {
            guard let entry = entries[old.version] else {
                throw .unknownApplied(line: legacyTable, version: old.version, name: old.name)
            }
            guard entry.checksum == old.checksum else { throw .legacyEdited(version: old.version, name: entry.name) }
            for piece in entry.pieces {
                guard let line = byName[piece.line] else { continue }
                guard let migration = line.migrations.first(where: { $0.version == piece.version }) else {
                    throw .unknownApplied(line: piece.line, version: piece.version, name: piece.name)
                }
                marks.append((piece.line, migration))
            }
        }
        return marks
    }

    /// Checks what the database applied against `lines`: every applied migration of a given line
    /// must be one of its migrations, unchanged. Rows of lines not given are left alone.
    ///
    /// - Throws: ``MigrationError/unknownApplied(line:version:name:)``, ``MigrationError/edited(line:version:name:)``.
    public static func verify(_ applied: [AppliedMigration], lines: [MigrationLine]) throws(MigrationError) {
        let byName = Dictionary(lines.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let position = Dictionary(lines.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        let relevant = applied.filter { byName[$0.line] != nil }
            .sorted { (position[$0.line]!, $0.version) < (position[$1.line]!, $1.version) }
        for record in relevant {
            guard let migration = byName[record.line]!.migrations.first(where: { $0.version == record.version }) else {
                throw .unknownApplied(line: record.line, version: record.version, name: record.name)
            }
            if migration.checksum != record.checksum {
                throw .edited(line: record.line, version: record.version, name: migration.name)
            }
        }
    }

    /// The migrations still to apply, line by line in the order given (``ordered(_:)``'s), each
    /// line's by version.
    public static func pending(_ applied: [AppliedMigration], lines: [MigrationLine]) -> [(line: String, migration: Migration)] {
        let done = Set(applied.map { "\($0.line)\u{0}\($0.version)" })
        return lines.flatMap { line in
            line.migrations.filter { !done.contains("\(line.name)\u{0}\($0.version)") }.map { (line.name, $0) }
        }
    }

    /// The last version of `line` the database has applied; 0 when none is recorded (or the
    /// database was never migrated by this build's `reparto migrate`).
    @available(*, noasync)
    public static func lastApplied(line: String, on connection: PostgresConnection) throws -> Int {
        guard try connection.query("SELECT to_regclass('public.reparto_migrations') IS NOT NULL AS ok").first?.bool("ok") == true else { return 0 }
        return try connection.query("SELECT coalesce(max(version), 0) AS version FROM reparto_migrations WHERE line = $1", [line])
            .first?.int("version") ?? 0
    }

    // MARK: applying

    /// Applies what is missing of `lines` (in dependency order); returns the migrations applied now.
    ///
    /// - Throws: ``MigrationError`` (ordering, adoption, verification) or the server's error of a
    ///   migration, whose transaction is rolled back (the migrations before it stay applied).
    @available(*, noasync)
    public static func migrate(_ lines: [MigrationLine], on connection: PostgresConnection) throws -> [(line: String, migration: Migration)] {
        let lines = try ordered(lines)
        try connection.query("SELECT pg_advisory_lock($1)", [lockKey])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [lockKey]) }
        try connection.execute("""
            SET client_min_messages = warning;
            CREATE TABLE IF NOT EXISTS \(table) (
                line text NOT NULL,
                version integer NOT NULL,
                name text NOT NULL,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (line, version)
            );
            """)
        try adoptLegacy(lines, on: connection)

        let applied = try connection.query("SELECT line, version, name, checksum FROM \(table)").compactMap { row in
            row.string("line").flatMap { line in
                row.int("version").map {
                    AppliedMigration(line: line, version: $0, name: row.string("name") ?? "", checksum: row.string("checksum") ?? "")
                }
            }
        }
        try verify(applied, lines: lines)
        var done: [(line: String, migration: Migration)] = []
        for (line, migration) in pending(applied, lines: lines) {
            try connection.transaction { connection in
                try connection.execute(migration.sql)
                try record(line: line, migration, on: connection)
            }
            done.append((line, migration))
        }
        return done
    }

    /// Adopts a database of the global migrator, once: when `schema_migrations` exists and
    /// `reparto_migrations` is empty, records the pieces of its old versions as applied and renames
    /// it to `schema_migrations_legacy`, in one transaction.
    ///
    /// The pieces of lines that build did not have were skipped, yet the old migrations created
    /// their objects; so a line that appears later, with no row in `reparto_migrations` yet, is
    /// adopted then from `schema_migrations_legacy` (its pieces marked, the rest applied as usual).
    @available(*, noasync)
    static func adoptLegacy(_ lines: [MigrationLine], on connection: PostgresConnection) throws {
        guard let state = try connection.query("""
            SELECT to_regclass('\(legacyTable)') IS NOT NULL AS legacy,
                   to_regclass('\(adoptedLegacyTable)') IS NOT NULL AS adopted_legacy,
                   EXISTS (SELECT 1 FROM \(table)) AS started
            """).first else { return }
        if state.bool("legacy") == true, state.bool("started") == false {
            try connection.transaction { connection in
                let old = try oldVersions(in: legacyTable, on: connection)
                for (line, migration) in try legacyAdoption(applied: old, lines: lines) {
                    try record(line: line, migration, on: connection)
                }
                try connection.execute("ALTER TABLE \(legacyTable) RENAME TO \(adoptedLegacyTable)")
            }
            return
        }
        guard state.bool("adopted_legacy") == true else { return }
        let started = Set(try connection.query("SELECT DISTINCT line FROM \(table)").compactMap { $0.string("line") })
        let late = lines.filter { !started.contains($0.name) }
        guard !late.isEmpty else { return }
        try connection.transaction { connection in
            let old = try oldVersions(in: adoptedLegacyTable, on: connection)
            for (line, migration) in try legacyAdoption(applied: old, lines: late) {
                try record(line: line, migration, on: connection)
            }
        }
    }

    @available(*, noasync)
    private static func oldVersions(in table: String, on connection: PostgresConnection) throws -> [(version: Int, name: String, checksum: String)] {
        try connection.query("SELECT version, name, checksum FROM \(table) ORDER BY version").compactMap { row in
            row.int("version").map { (version: $0, name: row.string("name") ?? "", checksum: row.string("checksum") ?? "") }
        }
    }

    @available(*, noasync)
    private static func record(line: String, _ migration: Migration, on connection: PostgresConnection) throws {
        try connection.query("INSERT INTO \(table) (line, version, name, checksum) VALUES ($1, $2, $3, $4)",
                             [line, migration.version, migration.name, migration.checksum])
    }

    // MARK: where the files are

    /// The folder that holds one sub-folder per line (`migrations/runtime/0001_jobs.sql`, …):
    /// `$REPARTO_MIGRATIONS`, `./migrations`, next to the executable (`../share/reparto/migrations`),
    /// or the source tree this binary was built from.
    public static func defaultRoot() -> URL {
        let fileManager = FileManager.default
        if let env = ProcessInfo.processInfo.environment["REPARTO_MIGRATIONS"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        var candidates: [URL] = []
        candidates.append(URL(fileURLWithPath: fileManager.currentDirectoryPath).appendingPathComponent("migrations"))
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        candidates.append(executable.deletingLastPathComponent().appendingPathComponent("../share/reparto/migrations").standardized)
        // The source tree: the first `migrations` folder above this file (wherever the module's folder moves).
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for _ in 0..<6 {
            directory = directory.deletingLastPathComponent()
            candidates.append(directory.appendingPathComponent("migrations"))
        }
        return candidates.first { holdsRuntime($0) != nil } ?? candidates[0]
    }

    /// The runtime line's directory: `runtime/` in ``defaultRoot()``, or that folder itself where
    /// its top holds the runtime line's files (`0001_jobs.sql`).
    public static func defaultDirectory() -> URL {
        let root = defaultRoot()
        return holdsRuntime(root) ?? root.appendingPathComponent("runtime")
    }

    /// The runtime line's directory in `root` (`root/runtime`, or `root` itself), or nil.
    private static func holdsRuntime(_ root: URL) -> URL? {
        let fileManager = FileManager.default
        let nested = root.appendingPathComponent("runtime")
        if fileManager.fileExists(atPath: nested.appendingPathComponent(runtimeProbe).path) { return nested }
        if fileManager.fileExists(atPath: root.appendingPathComponent(runtimeProbe).path) { return root }
        return nil
    }
}
