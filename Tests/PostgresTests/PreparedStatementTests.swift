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

    // MARK: settings for one statement (libpq's pipeline mode)

    /// The setting most of these tests send with their statement.
    private static let genericPlan: KeyValuePairs<String, String> = ["plan_cache_mode": "force_generic_plan"]

    /// The plans a prepared statement got on this session: (generic, custom).
    private func plans(of sql: String, on connection: PostgresConnection) throws -> (generic: Int, custom: Int) {
        let row = try connection.query("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1", [sql]).first
        return (row?.int("generic_plans") ?? -1, row?.int("custom_plans") ?? -1)
    }

    @Test func settingsApplyToTheirStatementAloneAndItsPlan() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            let sql = "SELECT current_setting('plan_cache_mode') AS mode, $1::int + 1 AS next"
            for value in 1...3 {
                let row = try connection.query(prepared: sql, [value], settings: Self.genericPlan)[0]
                #expect(row.string("mode") == "force_generic_plan")
                #expect(row.int("next") == value + 1)
                // Set for the statement's implicit transaction only.
                #expect(try connection.query("SELECT current_setting('plan_cache_mode') AS mode")[0].string("mode") == "auto")
            }
            let counted = try plans(of: sql, on: connection)
            #expect(counted.generic == 3 && counted.custom == 0, "\(counted)")
            // Without the settings the same statement is planned as the session says.
            #expect(try connection.query(prepared: sql, [9])[0].string("mode") == "auto")
            #expect(try plans(of: sql, on: connection).custom == 1)
        }
    }

    @Test func settingsAreLeftOutInsideATransactionBlock() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            let mode = try connection.transaction { connection in
                let mode = try connection.query(prepared: "SELECT current_setting('plan_cache_mode') AS mode", [],
                                                settings: Self.genericPlan)[0].string("mode")
                // The block goes on: the statement was not run in a pipeline's own transaction.
                #expect(try connection.query("SELECT 1 AS one")[0].int("one") == 1)
                return mode
            }
            #expect(mode == "auto")
        }
    }

    @Test func anUnknownSettingIsTheErrorAndTheConnectionGoesOn() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            let error = #expect(throws: PostgresError.self) {
                try connection.query(prepared: "SELECT 1 AS one", [], settings: ["no_such_setting_at_all": "1"])
            }
            #expect(error?.kind == .query)
            #expect(error?.sqlState == "42704", "\(String(describing: error))")
            #expect(connection.isOK)
            #expect(try connection.query(prepared: "SELECT $1::int AS n", [5], settings: Self.genericPlan)[0].int("n") == 5)
        }
    }

    @Test func aStatementsErrorIsItsOwnAndNothingOfItStays() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            let table = "pipeline_probe_\(UUID().uuidString.prefix(8).lowercased())"
            try connection.execute("CREATE TEMP TABLE \(table) (a int PRIMARY KEY)")
            let insert = "INSERT INTO \(table) SELECT unnest($1::int[])"
            let error = #expect(throws: PostgresError.self) {
                try connection.query(prepared: insert, [[1, 2, 2]], settings: Self.genericPlan)
            }
            #expect(error?.sqlState == "23505", "\(String(describing: error))")
            #expect(try connection.query("SELECT count(*) AS n FROM \(table)")[0].int("n") == 0)
            try connection.query(prepared: insert, [[1, 2, 3]], settings: Self.genericPlan)
            #expect(try connection.query("SELECT count(*) AS n FROM \(table)")[0].int("n") == 3)
        }
    }

    @Test func statementsTheServerForgotArePreparedAgainWithTheirSettings() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            let sql = "SELECT current_setting('plan_cache_mode') AS mode, $1::int AS n"
            #expect(try connection.query(prepared: sql, [1], settings: Self.genericPlan)[0].int("n") == 1)
            try connection.execute("DEALLOCATE ALL")
            #expect(throws: PostgresError.self) { try connection.query(prepared: sql, [2], settings: Self.genericPlan) }
            let row = try connection.query(prepared: sql, [3], settings: Self.genericPlan)[0]
            #expect(row.int("n") == 3 && row.string("mode") == "force_generic_plan")
        }
    }

    @Test func aParameterRefusedBeforeSendingLeavesTheConnectionUsable() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            let sql = "SELECT $1::text AS t"
            let error = #expect(throws: PostgresError.self) {
                try connection.query(prepared: sql, ["a\u{0}b"], settings: Self.genericPlan)
            }
            #expect(error?.sqlState == "22021")
            // Not left in pipeline mode: a plain query (which libpq refuses there) still runs.
            #expect(try connection.query("SELECT 2 AS two")[0].int("two") == 2)
            #expect(try connection.query(prepared: sql, ["ab"], settings: Self.genericPlan)[0].string("t") == "ab")
        }
    }

    @Test func aConnectionLostUnderThePipelineIsReportedLost() async throws {
        try await onThread {
            let connection = try connect()
            let admin = try connect()
            defer {
                connection.close()
                admin.close()
            }
            let sql = "SELECT $1::int AS n"
            #expect(try connection.query(prepared: sql, [1], settings: Self.genericPlan)[0].int("n") == 1)
            let pid = try connection.query("SELECT pg_backend_pid() AS pid")[0].int("pid") ?? 0
            #expect(try admin.query("SELECT pg_terminate_backend($1::int) AS ok", [pid])[0].bool("ok") == true)
            let error = #expect(throws: PostgresError.self) { try connection.query(prepared: sql, [2], settings: Self.genericPlan) }
            #expect(error?.isConnectionLost == true, "\(String(describing: error))")
        }
    }
}
