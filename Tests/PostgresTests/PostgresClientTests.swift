import Foundation
import Postgres
import Testing

@Suite struct PostgresClientTests {
    @Test func poolRunsAQuery() async throws {
        let client = PostgresClient(configuration: try TestDatabase.configuration())
        let result = try await client.query("SELECT $1::text || '!' AS greeting", ["hello"])
        #expect(result.first?.string("greeting") == "hello!")
        await client.shutdown()
        await #expect(throws: PostgresError.self) { try await client.query("SELECT 1") }
    }
}
