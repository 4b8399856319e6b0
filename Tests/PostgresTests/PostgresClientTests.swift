import Foundation
import Postgres
import Testing

@Suite(.timeLimit(.minutes(2))) struct PostgresClientTests {
    @Test func poolRunsQueriesAndShutsDown() async throws {
        let client = PostgresClient(configuration: try TestDatabase.configuration())
        let result = try await client.query("SELECT $1::text || '!' AS greeting, $2::uuid AS id", ["hello", UUID?.none])
        #expect(result.first?.string("greeting") == "hello!")
        #expect(result.first?["id"] == nil)
        await client.shutdown()
        do {
            _ = try await client.query("SELECT 1")
            Issue.record("a shut-down client ran a query")
        } catch let error as PostgresError {
            #expect(error.kind == .closed)
        }
    }

    @Test func fiftyConcurrentTasksShareFourConnections() async throws {
        let client = PostgresClient(configuration: try TestDatabase.configuration(), maxConnections: 4)
        let counter = TestCounter()
        let results = try await withThrowingTaskGroup(of: (Int, Int?, Int32?).self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await client.withConnection { connection in
                        counter.enter()
                        defer { counter.leave() }
                        let row = try connection.query(
                            "SELECT $1::int * 3 AS tripled, pg_backend_pid() AS pid, pg_sleep(0.02)::text AS slept", [index]
                        )[0]
                        return (index, row.int("tripled"), row.int32("pid"))
                    }
                }
            }
            var collected: [(Int, Int?, Int32?)] = []
            for try await result in group { collected.append(result) }
            return collected
        }
        #expect(results.count == 50)
        #expect(results.allSatisfy { $0.1 == $0.0 * 3 })
        let pids = Set(results.compactMap(\.2))
        #expect(pids.count >= 1 && pids.count <= 4)
        #expect(counter.highWaterMark <= 4)
        #expect(counter.highWaterMark >= 2)
        await client.shutdown()
    }

    @Test func transactionsCommitAndRollBackOnThePool() async throws {
        struct Rejected: Error {}
        let client = PostgresClient(configuration: try TestDatabase.configuration(), maxConnections: 2)
        let table = uniqueName("pool_tx")
        try await client.withConnection { try $0.execute("CREATE TABLE \(table) (id int PRIMARY KEY)") }
        let sum = try await client.withTransaction { tx in
            try tx.query("INSERT INTO \(table) VALUES (1), (2)")
            return try tx.query("SELECT sum(id)::int AS s FROM \(table)")[0].int("s")
        }
        #expect(sum == 3)
        await #expect(throws: Rejected.self) {
            try await client.withTransaction { tx in
                try tx.query("INSERT INTO \(table) VALUES (3)")
                throw Rejected()
            }
        }
        // A body that leaves a transaction open does not leak it to the next user.
        try await client.withConnection { try $0.execute("BEGIN; INSERT INTO \(table) VALUES (4)") }
        let count = try await client.query("SELECT count(*)::int AS n FROM \(table)")
        #expect(count[0].int("n") == 2)
        try await client.withConnection { try $0.execute("DROP TABLE \(table)") }
        await client.shutdown()
    }

    @Test func replacesAConnectionKilledWhileIdle() async throws {
        let applicationName = uniqueName("pool_kill")
        let client = PostgresClient(configuration: try TestDatabase.configuration(applicationName: applicationName), maxConnections: 1)
        let first = try await client.query("SELECT pg_backend_pid() AS pid")[0].int32("pid")
        #expect(first != nil)

        let admin = PostgresClient(configuration: try TestDatabase.configuration())
        let killed = try await admin.query("SELECT pg_terminate_backend($1::int) AS ok", [first])
        #expect(killed[0].bool("ok") == true)
        // Wait (bounded) until the server has really ended that backend.
        let gone = try await admin.withConnection { connection in
            for _ in 0..<100 {
                let rows = try connection.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1::int", [first])
                if rows.isEmpty { return true }
                _ = try connection.query("SELECT pg_sleep(0.02)")
            }
            return false
        }
        #expect(gone)

        // The idle check notices the dead connection, so the next call just works.
        let second = try await client.query("SELECT pg_backend_pid() AS pid, application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()")
        #expect(second[0].int32("pid") != nil)
        #expect(second[0].int32("pid") != first)
        #expect(second[0].string("application_name") == applicationName)
        await client.shutdown()
        await admin.shutdown()
    }

    @Test func replacesAConnectionLostDuringTheBody() async throws {
        let client = PostgresClient(configuration: try TestDatabase.configuration(), maxConnections: 1)
        let first = try await client.query("SELECT pg_backend_pid() AS pid")[0].int32("pid")
        do {
            _ = try await client.query("SELECT pg_terminate_backend(pg_backend_pid())")
            Issue.record("a self-terminating query succeeded")
        } catch let error as PostgresError {
            #expect(error.isConnectionLost)
        }
        let second = try await client.query("SELECT pg_backend_pid() AS pid")[0].int32("pid")
        #expect(second != nil)
        #expect(second != first)
        await client.shutdown()
    }

    @Test func shutdownFailsWaitersAndConnectErrorsSurface() async throws {
        let client = PostgresClient(configuration: try TestDatabase.configuration(), maxConnections: 1)
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        // Hold the only connection until released (semaphore only on the pool's own thread).
        let gate = DispatchSemaphore(value: 0)
        let holder = Task {
            try await client.withConnection { _ in
                startedContinuation.yield()
                gate.wait()
                return 1
            }
        }
        var startedIterator = started.makeAsyncIterator()
        _ = await startedIterator.next()
        let waiter = Task { try await client.query("SELECT 1") }
        // Shut down only once the waiter is in the pool's queue: that is the path under test.
        try await waitUntil("the waiter to queue") { client.waitingCount == 1 }
        await client.shutdown()
        #expect(client.waitingCount == 0)
        do {
            _ = try await waiter.value
            Issue.record("a waiter ran after shutdown")
        } catch let error as PostgresError {
            #expect(error.kind == .closed)
        }
        gate.signal()
        #expect(try await holder.value == 1)

        var unreachable = try TestDatabase.configuration()
        unreachable.host = "127.0.0.1"
        unreachable.port = 1
        let broken = PostgresClient(configuration: unreachable, maxConnections: 1)
        for _ in 0..<2 {
            do {
                _ = try await broken.query("SELECT 1")
                Issue.record("connected to port 1")
            } catch let error as PostgresError {
                #expect(error.kind == .connection)
            }
        }
        await broken.shutdown()
    }

    @Test func cancellingAWaiterThrowsCancellationError() async throws {
        let client = PostgresClient(configuration: try TestDatabase.configuration(), maxConnections: 1)
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let gate = DispatchSemaphore(value: 0)
        let holder = Task {
            try await client.withConnection { _ in
                startedContinuation.yield()
                gate.wait()
                return 1
            }
        }
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()
        let waiter = Task { try await client.query("SELECT 1") }
        // Cancel once the waiter is queued (a task cancelled before it asks never reaches the queue).
        try await waitUntil("the waiter to queue") { client.waitingCount == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(client.waitingCount == 0, "the cancelled waiter left the queue")
        gate.signal()
        #expect(try await holder.value == 1)
        // The pool still works afterwards.
        #expect(try await client.query("SELECT 2 AS two")[0].int("two") == 2)
        await client.shutdown()
    }
}

/// Polls `condition` every 10 ms until it holds; fails after 30 s.
func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting for \(what)")
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
