import Foundation
import Postgres
import Testing

@Suite(.timeLimit(.minutes(2))) struct PreparedStatementTests {
    private func preparedCount(_ connection: PostgresConnection) throws -> Int {
        try connection.query("SELECT count(*) AS n FROM pg_prepared_statements").first?.int("n") ?? -1
    }

    @Test func preparesOnceAndRunsWithEachCallsParameters() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            let sql = "SELECT $1::int * 2 AS doubled, $2::text AS name"
            for value in [1, 2, 21] {
                let row = try connection.query(prepared: sql, [value, awkwardStrings[value % awkwardStrings.count]])[0]
                #expect(row.int("doubled") == value * 2)
                #expect(row.string("name") == awkwardStrings[value % awkwardStrings.count])
            }
            #expect(try preparedCount(connection) == 1)
            _ = try connection.query(prepared: "SELECT $1::text IS NULL AS missing", [Optional<String>.none])
            #expect(try connection.query(prepared: "SELECT $1::text IS NULL AS missing", ["x"])[0].bool("missing") == false)
            #expect(try preparedCount(connection) == 2)
        }
    }

    @Test func aRolledBackTransactionKeepsTheStatementPrepared() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            struct Abandon: Error {}
            #expect(throws: Abandon.self) {
                try connection.transaction { connection in
                    _ = try connection.query(prepared: "SELECT $1::int AS n", [7])
                    throw Abandon()
                }
            }
            #expect(try connection.query(prepared: "SELECT $1::int AS n", [8])[0].int("n") == 8)
        }
    }

    @Test func aStatementTheServerForgotIsPreparedAgain() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            let sql = "SELECT $1::int + 1 AS next"
            #expect(try connection.query(prepared: sql, [1])[0].int("next") == 2)
            try connection.execute("DEALLOCATE ALL")
            // The first call after fails with the server's error; the connection then prepares again.
            #expect(throws: PostgresError.self) { try connection.query(prepared: sql, [2]) }
            #expect(try connection.query(prepared: sql, [3])[0].int("next") == 4)
        }
    }

    @Test func aChangedResultTypeIsPreparedAgain() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            let table = "prepared_probe_\(UUID().uuidString.prefix(8).lowercased())"
            try connection.execute("CREATE TEMP TABLE \(table) (a int)")
            try connection.execute("INSERT INTO \(table) VALUES (1)")
            let sql = "SELECT * FROM \(table) WHERE a = $1::int"
            #expect(try connection.query(prepared: sql, [1]).columns == ["a"])
            try connection.execute("ALTER TABLE \(table) ADD COLUMN b text")
            #expect(throws: PostgresError.self) { try connection.query(prepared: sql, [1]) }
            #expect(try connection.query(prepared: sql, [1]).columns == ["a", "b"])
        }
    }

    @Test func errorsAreTheServersOwn() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            do {
                _ = try connection.query(prepared: "SELECT 1 / $1::int AS q", [0])
                Issue.record("division by zero succeeded")
            } catch let error as PostgresError {
                #expect(error.sqlState == "22012")
            }
            do {
                _ = try connection.query(prepared: "SELEC nothing", [])
                Issue.record("a syntax error was prepared")
            } catch let error as PostgresError {
                #expect(error.sqlState == "42601")
            }
            #expect(try connection.query(prepared: "SELECT 1 / $1::int AS q", [1])[0].int("q") == 1)
        }
    }
}
