import Composition
import Foundation
import Postgres
import ProductionKit
import RepartoConfiguration
import RepartoTestSupport
import RepartoTesting
import SpeechJobs
import TableRead
import Testing

/// The table read's handlers run one job at a time through RepartoTesting: the effects are seen
/// inside their transaction and gone after it.
@Suite(.timeLimit(.minutes(2)))
struct TableReadHandlerTests {
    static func database() async throws -> TestDatabase {
        let lines = try Kinds.migrationLines(ConfigurationValues(environment: [:]),
                                             runtimeDirectory: TestEnvironment.repositoryRoot.appendingPathComponent("migrations"))
        return try await TestDatabase.create(admin: try PostgresConfiguration(url: TestEnvironment.databaseURL()), lines: lines)
    }

    static func registry(_ database: TestDatabase) -> JobRegistry {
        let registry = JobRegistry()
        TableReadProduction.register(in: registry, environment: ProductionEnvironment(
            assetsRoot: database.assetsRoot, configuration: ConfigurationValues(environment: [:]), postgres: database.postgres))
        return registry
    }

    @Test func aParseJobStoresItsDocumentInItsTransactionAndEnqueuesNothing() async throws {
        let database = try await Self.database()
        let script = "Title: Night Ferry\n\nINT. FERRY DECK - NIGHT\n\nRain.\n\nISOLDE\nWe are late.\n\nDEV\nWe are early.\n"
        let folder = database.assetsRoot.appendingPathComponent("sources/aa")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(script.utf8).write(to: folder.appendingPathComponent("ferry.fountain"))
        let tester = JobTester(registry: Self.registry(database), postgres: database.postgres)

        let run = try await tester.run(ParseJob(sourcePath: "sources/aa/ferry.fountain")) { transaction in
            try transaction.count("SELECT count(*)::int FROM documents WHERE format = 'fountain'")
        }
        #expect(run.succeeded, "\(run.error ?? "")")
        #expect(run.inspected == 1)
        #expect(run.enqueued.isEmpty)
        let result = try run.result(as: ParseJobResult.self)
        #expect(result.format == "fountain")
        #expect(result.elementCount > 4)
        #expect(!result.reused)
        // Rolled back: the database is as it was.
        #expect(try await database.postgres.query("SELECT count(*)::int AS n FROM documents").first?.int("n") == 0)
        await database.drop()
    }

    @Test func aParseJobOfAMissingFileIsDeadWithItsReasonAndWritesNothing() async throws {
        let database = try await Self.database()
        let tester = JobTester(registry: Self.registry(database), postgres: database.postgres)
        let run = try await tester.run(ParseJob(sourcePath: "sources/none/missing.fountain")) { transaction in
            try transaction.count("SELECT count(*)::int FROM documents")
        }
        #expect(run.state == .dead)
        #expect(run.error?.contains("missing.fountain") == true)
        #expect(run.inspected == 0)
        await database.drop()
    }

    @Test func everyKindOfTheTypeIsNamedForItAndAFormerNameStillRuns() async throws {
        let database = try await Self.database()
        let registry = Self.registry(database)
        #expect(registry.definitions.map(\.kind).allSatisfy { $0.hasPrefix("\(TableReadProduction.name).") })
        registry.alias(TableReadProduction.formerKindNames)
        // A job stored under its former name (`parse`) by an older producer runs as table-read.parse.
        let tester = JobTester(registry: registry, postgres: database.postgres)
        let run = try await tester.run(kind: "parse", parameters: Data(#"{"sourcePath":"sources/none/x.fountain"}"#.utf8)) { _ in () }
        #expect(run.state == .dead)
        #expect(run.error?.contains("x.fountain") == true)
        await database.drop()
    }
}
