import Analysis
import Composition
import Foundation
import Postgres
import ProductionKit
import RepartoConfiguration
import RepartoTestSupport
import RepartoTesting
import Testing

/// The analysis's handlers run one job at a time through RepartoTesting, against a stand-in of an
/// OpenAI-compatible server.
@Suite(.timeLimit(.minutes(2)))
struct AnalysisHandlerTests {
    static func database() async throws -> TestDatabase {
        let lines = try Kinds.migrationLines(ConfigurationValues(environment: [:]),
                                             runtimeDirectory: TestEnvironment.repositoryRoot.appendingPathComponent("migrations"))
        return try await TestDatabase.create(admin: try PostgresConfiguration(url: TestEnvironment.databaseURL()), lines: lines)
    }

    @Test func aSynopsisWithoutSceneSummariesIsDeadAndWritesNothing() async throws {
        let database = try await Self.database()
        let production = try await JobClient(postgres: database.postgres).createProduction(name: "a", plan: "analysis", stage: "synopsis")
        _ = try await database.postgres.query("""
            INSERT INTO analyses (production_id, source_name, text_providers, embedding_providers) VALUES ($1, 'x', '{openai}', '{openai}')
            """, [production])
        let registry = JobRegistry()
        AnalysisProduction.register(in: registry, environment: ProductionEnvironment(
            assetsRoot: database.assetsRoot, configuration: ConfigurationValues(environment: ["OPENAI_API_KEY": "sk-test"]),
            postgres: database.postgres))
        #expect(registry.definitions.map(\.kind).allSatisfy { $0.hasPrefix("\(AnalysisProduction.name).") })
        let tester = JobTester(registry: registry, postgres: database.postgres)
        let run = try await tester.run(SynopsisJob(productionID: production, textProviders: ["openai"]), production: production) { transaction in
            try transaction.count("SELECT count(*)::int FROM analyses WHERE logline IS NOT NULL")
        }
        #expect(run.state == .dead)
        #expect(run.error?.contains("no scene summaries") == true)
        #expect(run.inspected == 0)
        await database.drop()
    }
}
