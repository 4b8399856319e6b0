import Composition
import Foundation
import Postgres
import RepartoConfiguration
import RepartoRuntime
import SpeechJobs
import RepartoTestSupport
import Testing

/// A database the global migrator built (one sequence, `schema_migrations`, up to 0020) with work
/// in it is upgraded in place to the migration lines: nothing lost, kinds renamed, queued work runs.
@Suite(.timeLimit(.minutes(3)))
struct MigrationUpgradeTests {
    /// The global migrations as they were released (Fixtures/LegacyMigrations, verbatim).
    static let legacyDirectory = TestEnvironment.repositoryRoot.appendingPathComponent("Tests/IntegrationTests/Fixtures/LegacyMigrations")

    @Test func aDatabaseAtLegacy0020WithWorkUpgradesInPlaceAndItsQueuedWorkRuns() async throws {
        let cluster = try await TestCluster.make(migrated: false)
        try await cluster.postgres.withConnection { try Self.applyLegacy(through: 20, directory: Self.legacyDirectory, on: $0) }
        let production = UUID(), queued = UUID(), finished = UUID(), dead = UUID(), document = UUID()
        let speech = String(decoding: try JSONEncoder().encode(SpeechJob(items: [.init(text: "Still here.", voice: "en-us")])), as: UTF8.self)
        try await cluster.postgres.withConnection { connection in
            // Written as the 0020 schema and the old build's kind names had them.
            try connection.query("INSERT INTO productions (id, name, plan) VALUES ($1, 'old read', 'batch')", [production])
            try connection.query("""
                INSERT INTO jobs (id, kind, queue, params, production_id, stage, state, attempts, last_error, finished_at)
                VALUES ($1, 'generate', 'generate', $2::jsonb, $4, 'main', 'queued', 0, NULL, NULL),
                       ($3, 'parse', 'parse', '{}', $4, 'main', 'succeeded', 1, NULL, now()),
                       ($5, 'books.enrich', 'books', '{}', $4, 'main', 'dead', 3, 'no answer in time', now())
                """, [queued, speech, finished, production, dead])
            try connection.query("""
                INSERT INTO documents (id, source_path, source_sha256, format, element_count, production_id)
                VALUES ($1, 'productions/x/source.fountain', 'abc', 'fountain', 12, $2)
                """, [document, production])
            try connection.query("""
                INSERT INTO schedules (name, every_seconds, kind, queue, params, paused) VALUES ('nightly-embed', 86400, 'embed', 'generate', '{}', true)
                """)
            try connection.query("INSERT INTO pauses (scope, name) VALUES ('kind', 'assemble'), ('queue', 'books')")
        }

        let lines = try TestCluster.migrationLines()
        let applied = try await cluster.postgres.withConnection { try Migrator.migrate(lines, on: $0) }
        // What 0020 had is adopted, not run again: everything else ran (0021's part, the renames,
        // and whatever this build's lines added after the global sequence).
        let adopted = Set(LegacyMigrations.entries.filter { $0.version <= 20 }.flatMap(\.pieces).map { "\($0.line)/\($0.version)" })
        let expected = lines.flatMap { line in line.migrations.map { (line.name, $0) } }
            .filter { !adopted.contains("\($0.0)/\($0.1.version)") }.map { "\($0.0)/\($0.1.name)" }.sorted()
        #expect(applied.map { "\($0.line)/\($0.migration.name)" }.sorted() == expected)
        #expect(expected.contains("runtime/containment_and_namespaces") && expected.contains("table-read/kind_names"))
        #expect(!expected.contains("runtime/jobs") && !expected.contains("table-read/documents"))
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM reparto_migrations")
                == lines.reduce(0) { $0 + $1.migrations.count })
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM schema_migrations_legacy") == 20)
        #expect(try await cluster.count("SELECT (to_regclass('public.schema_migrations') IS NULL)::int AS n") == 1)

        // Rows written before namespaces belong to the default namespace (''); this test's session
        // has its own, so it reads across namespaces, then adopts the rows (as a cluster whose
        // REPARTO_NAMESPACE names them would) so this test's worker can run them.
        let everywhere = "SET LOCAL \(ClusterSettings.allNamespacesSetting) TO on"
        // Nothing lost, every stored kind under its new name.
        let kinds = try await cluster.postgres.withTransaction { connection in
            try connection.execute(everywhere)
            return try connection.query("SELECT id, kind, state, namespace FROM jobs ORDER BY kind")
        }
        #expect(kinds.map { $0.string("namespace") ?? "?" } == ["", "", ""])
        #expect(kinds.map { $0.string("kind") ?? "" } == ["book-import.enrich", "speech.synthesize", "table-read.parse"])
        #expect(kinds.map { $0.string("state") ?? "" } == ["dead", "queued", "succeeded"])
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM documents WHERE id = $1 AND element_count = 12", [document]) == 1)
        #expect(try await cluster.postgres.withTransaction { connection in
            try connection.execute(everywhere)
            return try connection.query("SELECT count(*)::int AS n FROM schedules WHERE kind = 'text.embed' AND paused").first?.int("n")
        } == 1)
        try await cluster.postgres.withTransaction { [name = cluster.name] connection in
            try connection.execute(everywhere)
            for table in ["productions", "jobs", "schedules"] {
                try connection.query("UPDATE \(table) SET namespace = $1 WHERE namespace = ''", [name])
            }
        }
        #expect(try await cluster.count("""
            SELECT count(*)::int AS n FROM pauses WHERE (scope, name) IN (('kind', 'table-read.assemble'), ('queue', 'books'))
            """) == 2)
        // Migrating again changes nothing.
        #expect(try await cluster.postgres.withConnection { try Migrator.migrate(lines, on: $0) }.isEmpty)

        // The job queued before the upgrade runs on this build's worker; so does one an old
        // producer enqueues afterwards under the old name.
        let late = UUID()
        _ = try await cluster.postgres.query("""
            INSERT INTO jobs (id, kind, queue, params) VALUES ($1, 'generate', 'generate', $2::jsonb)
            """, [late, speech])
        let registry = Kinds.registry(configuration: ConfigurationValues(environment: ["REPARTO_ESPEAK_ENGINE": "library"]),
                                      postgres: cluster.postgres, assetsRoot: cluster.assetsRoot)
        let worker = cluster.startWorker(registry: registry, concurrency: 2)
        for id in [queued, late] {
            let record = try await cluster.client.awaitJob(id, timeout: 60)
            #expect(record.state == .succeeded, "\(record.lastError ?? "")")
        }
        try await worker.stop()
        await cluster.shutdown()
    }

    /// The old global migrator's work, as it did it: each file in its transaction, recorded with
    /// its SHA-256 in `schema_migrations`.
    static func applyLegacy(through last: Int, directory: URL, on connection: PostgresConnection) throws {
        try connection.execute("""
            CREATE TABLE schema_migrations (
                version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
            """)
        let old = try MigrationLine.load(name: "legacy", directory: directory)
        for migration in old.migrations where migration.version <= last {
            try connection.transaction { connection in
                try connection.execute(migration.sql)
                try connection.query("INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                                     [migration.version, migration.name, migration.checksum])
            }
        }
    }
}
