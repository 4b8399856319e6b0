import BookCatalog
import BookImport
import Composition
import Foundation
import Postgres
import ProductionKit
import RepartoConfiguration
import RepartoTestSupport
import RepartoTesting
import Testing

/// The book import's handlers run one job at a time through RepartoTesting.
@Suite(.timeLimit(.minutes(2)))
struct BookImportHandlerTests {
    static func database() async throws -> TestDatabase {
        let lines = try Kinds.migrationLines(ConfigurationValues(environment: [:]),
                                             runtimeDirectory: TestEnvironment.repositoryRoot.appendingPathComponent("migrations"))
        return try await TestDatabase.create(admin: try PostgresConfiguration(url: TestEnvironment.databaseURL()), lines: lines)
    }

    @Test func aParseJobFillsTheCatalogInsideItsTransactionOnly() async throws {
        let database = try await Self.database()
        let export = #"""
            Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies
            1,Dune,Frank Herbert,"Herbert, Frank",,"=""0441013597""","=""9780441013593""",5,4.25,Ace,Paperback,604,2005,1965,2024/01/02,2023/12/01,,,read,,,,1,0
            2,The Dispossessed,Ursula K. Le Guin,"Le Guin, Ursula K.",,"=""""","=""""",0,4.2,Harper,Paperback,387,1994,1974,,2024/02/03,to-read,to-read (#1),to-read,,,,0,0
            """#
        let folder = database.assetsRoot.appendingPathComponent("sources/bb")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(export.utf8).write(to: folder.appendingPathComponent("export.csv"))
        let production = try await JobClient(postgres: database.postgres).createProduction(name: "books", plan: "book-import", stage: "parse")
        _ = try await database.postgres.query("""
            INSERT INTO book_imports (production_id, source_path, source_name, format, prune) VALUES ($1, 'sources/bb/export.csv', 'export.csv', 'goodreads', false)
            """, [production])
        let registry = JobRegistry()
        BookImportProduction.register(in: registry, environment: ProductionEnvironment(
            assetsRoot: database.assetsRoot, configuration: ConfigurationValues(environment: [:]), postgres: database.postgres))
        let tester = JobTester(registry: registry, postgres: database.postgres)

        let run = try await tester.run(BookParseJob(sourcePath: "sources/bb/export.csv", format: .goodreads, prune: false),
                                       production: production, stage: "parse") { transaction in
            try transaction.count("SELECT count(*)::int FROM books")
        }
        #expect(run.succeeded, "\(run.error ?? "")")
        #expect(run.inspected == 2)
        #expect(run.enqueued.isEmpty)
        #expect(try await database.postgres.query("SELECT count(*)::int AS n FROM books").first?.int("n") == 0)
        await database.drop()
    }

    @Test func withoutADatabaseEveryKindIsRegisteredAndEnrichmentFailsWithItsReason() async throws {
        let database = try await Self.database()
        let registry = JobRegistry()
        BookImportProduction.register(in: registry, environment: ProductionEnvironment(
            assetsRoot: database.assetsRoot, configuration: ConfigurationValues(environment: [:]), postgres: nil))
        #expect(registry.definitions.map(\.kind) == [BookEnrichJob.kind, BookParseJob.kind, HTTPCachePruneJob.kind])
        let tester = JobTester(registry: registry, postgres: database.postgres)
        let run = try await tester.run(kind: BookEnrichJob.kind, parameters: Data(#"{"bookIDs":["\#(UUID())"]}"#.utf8)) { _ in () }
        #expect(run.state == .dead)
        #expect(run.error?.contains("needs the database") == true)
        await database.drop()
    }
}
