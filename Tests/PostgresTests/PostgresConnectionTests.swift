import Foundation
import Postgres
import Testing

/// Awkward text: quotes, backslashes, control characters, array/COPY syntax, non-ASCII.
let awkwardStrings: [String] = [
    "plain",
    "",
    "it's \"quoted\"",
    "back\\slash \\\\ double \\N \\x41",
    "line one\nline two\r\nwindows\ttab",
    "{curly,braces} (parens) NULL",
    "Ünïcödé — 日本語 — emoji 🎬🎭 — combining e\u{301}",
    "$1 ; DROP TABLE jobs; --",
    " leading and trailing spaces ",
]

struct Payload: Codable, Equatable {
    var name: String
    var tags: [String]
    var count: Int
}

@Suite(.timeLimit(.minutes(2))) struct PostgresConnectionTests {
    @Test func connectsAndQueriesWithParameters() async throws {
        try await onThread {
            // The blocking work runs on the test helper's own queue, not the cooperative pool.
            #expect(isOnBlockingQueue())
            let connection = try connect()
            defer { connection.close() }
            #expect(connection.isOK)
            #expect(connection.backendPID > 0)
            let result = try connection.query(
                "SELECT $1::int + $2::int AS sum, $3::text AS name, current_setting('TimeZone') AS tz, current_setting('DateStyle') AS style",
                [40, 2, "Ré\"par'to"]
            )
            #expect(result.count == 1)
            #expect(result.columns == ["sum", "name", "tz", "style"])
            #expect(result[0].int("sum") == 42)
            #expect(result[0]["name"] == "Ré\"par'to")
            #expect(result[0][2] == "UTC")
            #expect(result[0].string("style")?.hasPrefix("ISO") == true)
            #expect(result[0].string("missing") == nil)
            #expect(result[0][99] == nil)
        }
    }

    @Test func roundTripsEveryScalarParameterType() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            for text in awkwardStrings {
                let row = try connection.query("SELECT $1::text AS s, length($1::text) AS n", [text])[0]
                #expect(row.string("s") == text)
                #expect(row.int("n") == text.unicodeScalars.count)
            }
            let substring = "xx-sub-xx".dropFirst(3).dropLast(3)
            #expect(try connection.query("SELECT $1::text AS s", [substring])[0].string("s") == "sub")

            for value in [Int.min, -1, 0, 1, Int.max] {
                #expect(try connection.query("SELECT $1::bigint AS v", [value])[0].int("v") == value)
            }
            for value in [Int32.min, 0, Int32.max] {
                #expect(try connection.query("SELECT $1::int AS v", [value])[0].int32("v") == value)
            }
            for value in [Int64.min, 42, Int64.max] {
                #expect(try connection.query("SELECT $1::bigint AS v", [value])[0].int64("v") == value)
            }
            for value in [0.0, -1.5, Double.pi, 1e-300, 6.02214076e23, Double.greatestFiniteMagnitude, .infinity, -.infinity] {
                #expect(try connection.query("SELECT $1::float8 AS v", [value])[0].double("v") == value)
            }
            #expect(try connection.query("SELECT $1::float8 AS v", [Double.nan])[0].double("v")?.isNaN == true)
            for value in [true, false] {
                let row = try connection.query("SELECT $1::bool AS v, NOT $1::bool AS negated", [value])[0]
                #expect(row.bool("v") == value)
                #expect(row.bool("negated") == !value)
            }

            let uuid = UUID()
            let uuidRow = try connection.query("SELECT $1::uuid AS v, $1::uuid::text = lower($1::text) AS canonical", [uuid])[0]
            #expect(uuidRow.uuid("v") == uuid)
            #expect(uuidRow.bool("canonical") == true)

            let dates = [
                Date(timeIntervalSince1970: Double(1_795_316_400_123_456) / 1_000_000),
                Date(timeIntervalSince1970: 0),
                Date(timeIntervalSince1970: -1_234_567.000_001),
                Date(timeIntervalSince1970: Double(Int64(Date().timeIntervalSince1970 * 1_000_000)) / 1_000_000),
            ]
            for date in dates {
                let row = try connection.query("SELECT $1::timestamptz AS v, extract(epoch FROM $1::timestamptz)::text AS epoch", [date])[0]
                #expect(row.date("v") == date)
                #expect(row.double("epoch").map { abs($0 - date.timeIntervalSince1970) < 1e-6 } == true)
            }
            // The server reads our text as UTC, whatever the offset notation.
            let at = try connection.query("SELECT '2026-11-22 05:00:00+02'::timestamptz = $1::timestamptz AS same", [Date(timeIntervalSince1970: 1_795_316_400)])
            #expect(at[0].bool("same") == true)

            let bytes = Data((0...255).map { UInt8($0) } + [0, 0, 92, 120])
            let byteRow = try connection.query("SELECT $1::bytea AS v, length($1::bytea) AS n", [bytes])[0]
            #expect(byteRow.data("v") == bytes)
            #expect(byteRow.int("n") == bytes.count)

            let nothing: String? = nil
            let nullRow = try connection.query("SELECT $1::text AS v, $1::text IS NULL AS isnull, $2::int AS i", [nothing, Int?.some(7)])[0]
            #expect(nullRow["v"] == nil)
            #expect(nullRow.bool("isnull") == true)
            #expect(nullRow.int("i") == 7)

            let payload = Payload(name: "Ünï \"q\" \\ \n", tags: ["a", "b,c"], count: 3)
            let jsonRow = try connection.query("SELECT $1::jsonb AS v, $1::jsonb->>'name' AS name", [PostgresJSON(encoding: payload)])[0]
            #expect(try jsonRow.json("v", as: Payload.self) == payload)
            #expect(jsonRow.string("name") == payload.name)
            #expect(try jsonRow.json("missing", as: Payload.self) == nil)
        }
    }

    @Test func roundTripsArraysOfEveryTypeThroughUnnest() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            func column(_ sql: String, _ parameter: any PostgresEncodable) throws -> [PostgresRow] {
                Array(try connection.query("SELECT v FROM unnest(\(sql)) WITH ORDINALITY AS t(v, n) ORDER BY n", [parameter]))
            }

            let texts: [String?] = awkwardStrings + [nil, "NULL", "\"", "\\"]
            #expect(try column("$1::text[]", texts).map { $0["v"] } == texts)

            let uuids = [UUID(), UUID(), UUID()]
            #expect(try column("$1::uuid[]", uuids).map { $0.uuid("v") } == uuids)

            let ints: [Int?] = [1, nil, -3, Int(Int32.max)]
            #expect(try column("$1::int[]", ints).map { $0.int("v") } == ints)

            let bigs: [Int64] = [Int64.min, 0, Int64.max]
            #expect(try column("$1::bigint[]", bigs).map { $0.int64("v") } == bigs)

            let doubles = [0.1, -2.5e-10, Double.pi]
            #expect(try column("$1::float8[]", doubles).map { $0.double("v") } == doubles)

            let bools: [Bool?] = [true, nil, false]
            #expect(try column("$1::bool[]", bools).map { $0.bool("v") } == bools)

            let dates = [Date(timeIntervalSince1970: 1_795_316_400.25), Date(timeIntervalSince1970: 86_400)]
            #expect(try column("$1::timestamptz[]", dates).map { $0.date("v") } == dates)

            let blobs = [Data([0, 1, 2]), Data(), Data("\\\"{}".utf8)]
            #expect(try column("$1::bytea[]", blobs).map { $0.data("v") } == blobs)

            let payloads = [
                Payload(name: "one \"1\"", tags: [], count: 1),
                Payload(name: "two\\2\n", tags: ["x", "{y}"], count: 2),
            ]
            let jsons = try payloads.map { try PostgresJSON(encoding: $0) }
            #expect(try column("$1::jsonb[]", jsons).map { try $0.json("v", as: Payload.self) } == payloads)

            let empty = try connection.query("SELECT cardinality($1::text[]) AS n", [[String]()])
            #expect(empty[0].int("n") == 0)

            // Several arrays in one batch statement, as the job runtime does.
            let ids = [UUID(), UUID()]
            let names = ["a\"b", "c\\d"]
            let batch = try connection.query(
                "SELECT id, name FROM unnest($1::uuid[], $2::text[]) AS t(id, name) ORDER BY name",
                [ids, names]
            )
            #expect(batch.map { $0.uuid("id") } == ids)
            #expect(batch.map { $0.string("name") } == names)
        }
    }

    @Test func reportsSQLStateForUniqueViolationsAndSyntaxErrors() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            try connection.execute("CREATE TEMP TABLE unique_test (id int PRIMARY KEY, name text UNIQUE)")
            let insert = try connection.query("INSERT INTO unique_test VALUES ($1, $2)", [1, "a"])
            #expect(insert.rowsAffected == 1)
            #expect(insert.commandTag == "INSERT 0 1")
            do {
                try connection.query("INSERT INTO unique_test VALUES ($1, $2)", [2, "a"])
                Issue.record("the duplicate insert succeeded")
            } catch let error as PostgresError {
                #expect(error.kind == .query)
                #expect(error.sqlState == "23505")
                #expect(error.isUniqueViolation)
                #expect(!error.isConnectionLost)
                #expect(error.detail?.contains("(name)=(a)") == true)
                #expect(error.description.hasPrefix("PostgreSQL error 23505: duplicate key value violates unique constraint"))
            }
            do {
                try connection.query("SELEC 1")
                Issue.record("the syntax error was accepted")
            } catch let error as PostgresError {
                #expect(error.kind == .query)
                #expect(error.sqlState == "42601")
                #expect(!error.isUniqueViolation)
            }
            do {
                try connection.execute("SELECT 1; SELECT * FROM no_such_table_anywhere")
                Issue.record("the missing table was found")
            } catch let error as PostgresError {
                #expect(error.sqlState == "42P01")
            }
            // The connection is still usable after errors.
            #expect(try connection.query("SELECT count(*) AS n FROM unique_test")[0].int("n") == 1)
        }
    }

    @Test func rejectsNULCharactersInParameters() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            #expect(throws: PostgresError.self) { try connection.query("SELECT $1::text", ["a\u{0}b"]) }
            #expect(try connection.query("SELECT 1 AS one")[0].int("one") == 1)
        }
    }

    @Test func transactionsCommitAndRollBack() async throws {
        struct BodyFailed: Error {}
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            try connection.execute("CREATE TEMP TABLE tx_test (id int PRIMARY KEY)")
            let returned = try connection.transaction { tx in
                try tx.query("INSERT INTO tx_test VALUES (1), (2)")
                return "done"
            }
            #expect(returned == "done")
            #expect(!connection.isInTransaction)

            #expect(throws: BodyFailed.self) {
                try connection.transaction { tx in
                    try tx.query("INSERT INTO tx_test VALUES (3)")
                    throw BodyFailed()
                }
            }
            #expect(!connection.isInTransaction)

            // A body that swallows a statement error must not "commit" silently.
            do {
                try connection.transaction { tx in
                    try tx.query("INSERT INTO tx_test VALUES (4)")
                    _ = try? tx.query("INSERT INTO tx_test VALUES (1)")
                }
                Issue.record("an aborted transaction reported success")
            } catch let error as PostgresError {
                #expect(error.sqlState == "25P02")
            }

            // Nested transactions use savepoints: the inner failure keeps the outer work.
            try connection.transaction { tx in
                try tx.query("INSERT INTO tx_test VALUES (5)")
                _ = try? tx.transaction { inner in
                    try inner.query("INSERT INTO tx_test VALUES (6)")
                    throw BodyFailed()
                }
                try tx.query("INSERT INTO tx_test VALUES (7)")
            }

            let ids = try connection.query("SELECT id FROM tx_test ORDER BY id").map { $0.int("id") }
            #expect(ids == [1, 2, 5, 7])
        }
    }

    @Test func transactionSettingsLastForTheTransactionAndABadOneLeavesNoneOpen() async throws {
        try await onThread {
            let connection = try connect()
            defer { connection.close() }
            let show = { (name: String) in try connection.query("SHOW \(name)").first?.string(name) }
            let inside = try connection.transaction(settings: ["synchronous_commit": "off", "plan_cache_mode": "force_generic_plan"]) { _ in
                (try show("synchronous_commit"), try show("plan_cache_mode"))
            }
            #expect(inside.0 == "off")
            #expect(inside.1 == "force_generic_plan")
            #expect(try show("synchronous_commit") == "on")
            #expect(try show("plan_cache_mode") == "auto")
            // Nested: the savepoint's transaction takes them too.
            let nested = try connection.transaction { tx in
                try tx.transaction(settings: ["synchronous_commit": "off"]) { _ in try show("synchronous_commit") }
            }
            #expect(nested == "off")
            #expect(throws: PostgresError.self) {
                try connection.transaction(settings: ["synchronous_commit": "sometimes"]) { _ in "ran" }
            }
            #expect(!connection.isInTransaction)
            #expect(try show("synchronous_commit") == "on")
        }
    }

    @Test func listenAndNotifyRoundTrip() async throws {
        try await onThread {
            let listener = try connect()
            let notifier = try connect()
            defer {
                listener.close()
                notifier.close()
            }
            let channel = "Reparto \"Channel\" " + uniqueName("ch")
            try listener.listen(channel)
            #expect(try listener.waitForNotifications(timeout: 0.05).isEmpty)

            let payload = "payload 'with' \"quotes\" \\ and ünïcode"
            try notifier.notify(channel, payload: payload)
            try notifier.notify(channel, payload: "second")
            var received: [PostgresNotification] = []
            let deadline = Date().addingTimeInterval(5)
            while received.count < 2, Date() < deadline {
                received += try listener.waitForNotifications(timeout: 1)
            }
            #expect(received.map(\.payload) == [payload, "second"])
            #expect(received.allSatisfy { $0.channel == channel && $0.pid == notifier.backendPID })

            // Not delivered before commit; delivered after.
            try notifier.transaction { tx in
                try tx.notify(channel, payload: "after commit")
                #expect(try listener.waitForNotifications(timeout: 0.1).isEmpty)
            }
            #expect(try listener.waitForNotifications(timeout: 5).map(\.payload) == ["after commit"])

            try listener.unlisten(channel)
            try notifier.notify(channel, payload: "ignored")
            #expect(try listener.waitForNotifications(timeout: 0.2).isEmpty)
        }
    }

    @Test func waitForNotificationsThrowsWhenTheConnectionIsKilled() async throws {
        try await onThread {
            let listener = try connect()
            let admin = try connect()
            defer {
                listener.close()
                admin.close()
            }
            try listener.listen(uniqueName("ch"))
            let killed = try admin.query("SELECT pg_terminate_backend($1::int) AS ok", [listener.backendPID])
            #expect(killed[0].bool("ok") == true)
            do {
                for _ in 0..<50 { _ = try listener.waitForNotifications(timeout: 0.1) }
                Issue.record("a killed connection kept waiting")
            } catch let error as PostgresError {
                #expect(error.isConnectionLost)
            }
            #expect(!listener.isOK)
        }
    }

    /// The modes reach libpq: the local server has no TLS, so requiring it fails with libpq's own
    /// reason, and disabling it connects.
    @Test func sslModeReachesLibpq() async throws {
        try await onThread {
            var required = try TestDatabase.configuration()
            required.sslMode = .require
            do {
                _ = try PostgresConnection.connect(required)
                Issue.record("a server without TLS accepted sslmode=require")
            } catch let error as PostgresError {
                #expect(error.kind == .connection)
                #expect(error.description.contains("SSL"))
            }
            var disabled = try TestDatabase.configuration()
            disabled.sslMode = .disable
            disabled.gssEncryptionMode = .disable
            let connection = try PostgresConnection.connect(disabled)
            defer { connection.close() }
            #expect(try connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").first?.bool("ssl") == false)
        }
    }

    @Test func closedConnectionsThrowClosed() async throws {
        try await onThread {
            let connection = try connect()
            connection.close()
            connection.close()
            #expect(!connection.isOK)
            do {
                try connection.query("SELECT 1")
                Issue.record("a closed connection ran a query")
            } catch let error as PostgresError {
                #expect(error.kind == .closed)
                #expect(error.isConnectionLost)
            }
        }
    }

    @Test func wrongPasswordFailsWithoutRevealingIt() async throws {
        try await onThread {
            var configuration = try TestDatabase.configuration()
            let secret = "Wrong-Secret-" + uniqueName("pw")
            configuration.password = secret
            do {
                _ = try PostgresConnection.connect(configuration)
                Issue.record("connected with a wrong password")
            } catch let error as PostgresError {
                #expect(error.kind == .connection)
                #expect(error.isConnectionLost)
                #expect(error.message.contains("password authentication failed"))
                #expect(!error.description.contains(secret))
                #expect(!error.message.contains(secret))
                #expect(!"\(error)".contains(secret))
                #expect(error.description.hasPrefix("cannot connect to PostgreSQL at \(configuration.host):\(configuration.port): "))
            }
        }
    }

    @Test func interruptibleConnectSucceedsAndCanBeCancelled() async throws {
        try await onThread {
            let configuration = try TestDatabase.configuration(applicationName: "interruptible")
            let connection = try PostgresConnection.connect(configuration, isCancelled: { false })
            defer { connection.close() }
            #expect(try connection.query("SELECT current_setting('application_name') AS name, current_setting('TimeZone') AS tz")
                .first.map { [$0.string("name"), $0.string("tz")] } == ["interruptible", "UTC"])
            do {
                _ = try PostgresConnection.connect(configuration, isCancelled: { true })
                Issue.record("a cancelled connection attempt succeeded")
            } catch let error as PostgresError {
                #expect(error.kind == .closed)
            }
            var wrong = configuration
            wrong.password = "Wrong-" + uniqueName("pw")
            do {
                _ = try PostgresConnection.connect(wrong, isCancelled: { false })
                Issue.record("connected with a wrong password")
            } catch let error as PostgresError {
                #expect(error.kind == .connection)
                #expect(!error.description.contains(wrong.password!))
            }
        }
    }

    @Test func unreachablePortFailsWithAConnectionError() async throws {
        try await onThread {
            var configuration = try TestDatabase.configuration()
            configuration.host = "127.0.0.1"
            configuration.port = 1
            do {
                _ = try PostgresConnection.connect(configuration)
                Issue.record("connected to port 1")
            } catch let error as PostgresError {
                #expect(error.kind == .connection)
                #expect(error.description.hasPrefix("cannot connect to PostgreSQL at 127.0.0.1:1: "))
                if let password = configuration.password {
                    #expect(!error.description.contains(password))
                }
            }
        }
    }
}
