import Foundation
import Postgres
import Testing

@Suite struct PostgresConnectionTests {
    @Test func connectsAndQueriesWithParameters() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            #expect(connection.isOK)
            let result = try connection.query("SELECT $1::int + $2::int AS sum, $3::text AS name, current_setting('TimeZone') AS tz", [40, 2, "Ré\"par'to"])
            #expect(result.count == 1)
            #expect(result.columns == ["sum", "name", "tz"])
            #expect(result[0].int("sum") == 42)
            #expect(result[0]["name"] == "Ré\"par'to")
            #expect(result[0][2] == "UTC")
            #expect(result[0].string("missing") == nil)
        }
    }
}
