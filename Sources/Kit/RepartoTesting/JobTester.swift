import Foundation
import Logging
import Postgres
@_spi(Testing) import RepartoRuntime

/// Runs one job of a kind the way a worker would, with its database effects applied inside a
/// transaction that is rolled back: what `rivertest` and `Oban.Testing` are for River and Oban.
/// No broker, no worker, no coordinator: the handler, its effects, and what they enqueued.
///
/// ```swift
/// let tester = JobTester(registry: registry, postgres: postgres)
/// let run = try await tester.run(ParseJob(sourcePath: "pilot.fountain")) { transaction in
///     try transaction.count("SELECT count(*) FROM documents")
/// }
/// #expect(run.succeeded)
/// #expect(run.inspected == 1)      // seen inside the transaction…
/// // …and gone after it: the database is as it was.
/// ```
public struct JobTester: Sendable {
    public let registry: JobRegistry
    /// The pool the effects' transaction takes its connection from (a test's own database).
    public let postgres: PostgresClient
    public let logger: Logger

    public init(registry: JobRegistry, postgres: PostgresClient, logger: Logger = Logger(label: "reparto.testing")) {
        (self.registry, self.postgres, self.logger) = (registry, postgres, logger)
    }

    /// Runs one attempt of `job`. A handler that succeeds has its effects applied, in order, in
    /// one transaction; `inspect` then reads that transaction's state (the rows the effects wrote,
    /// the jobs they enqueued) and the transaction is rolled back, so nothing stays.
    /// - Parameters:
    ///   - production: the production the job belongs to (its row must exist for effects that need it).
    ///   - attempt: which attempt this is (1 for the first), for handlers that act on the last one.
    ///   - previousError: the error the previous attempt left.
    /// - Throws: an error an effect threw (as a worker would fail the job with it), or a database error.
    public func run<P: JobParameters, T: Sendable>(
        _ job: P, production: UUID? = nil, stage: String? = nil, attempt: Int = 1, maxAttempts: Int = 3,
        previousError: String? = nil, inspect: @escaping @Sendable (TestTransaction) throws -> T
    ) async throws -> JobRun<T> {
        let claimed = ClaimedJob(id: UUID(), kind: P.kind, parameters: try JSONEncoder.jobs.encode(job), attempt: attempt,
                                 maxAttempts: maxAttempts, productionID: production, stage: stage,
                                 limitKey: job.limitKey, lastError: previousError)
        return try await run(claimed, inspect: inspect)
    }

    /// ``run(_:production:stage:attempt:maxAttempts:previousError:inspect:)`` without an inspection.
    public func run<P: JobParameters>(_ job: P, production: UUID? = nil, stage: String? = nil, attempt: Int = 1,
                                      maxAttempts: Int = 3, previousError: String? = nil) async throws -> JobRun<Void> {
        try await run(job, production: production, stage: stage, attempt: attempt, maxAttempts: maxAttempts,
                      previousError: previousError) { _ in () }
    }

    /// Runs a job known by kind name with JSON parameters (what `reparto enqueue` takes), so
    /// hostile or hand-written parameters can be tried as a worker would meet them.
    public func run<T: Sendable>(kind: String, parameters: Data, production: UUID? = nil, attempt: Int = 1, maxAttempts: Int = 3,
                                 inspect: @escaping @Sendable (TestTransaction) throws -> T) async throws -> JobRun<T> {
        try await run(ClaimedJob(id: UUID(), kind: kind, parameters: parameters, attempt: attempt, maxAttempts: maxAttempts,
                                 productionID: production), inspect: inspect)
    }

    private func run<T: Sendable>(_ job: ClaimedJob, inspect: @escaping @Sendable (TestTransaction) throws -> T) async throws -> JobRun<T> {
        let rehearsal = try await JobRehearsal.run(job, registry: registry, logger: logger)
        let outcome = rehearsal.outcome
        let effects = rehearsal.effects
        return try await postgres.withConnection { connection in
            try connection.execute("BEGIN")
            do {
                var result = outcome.result
                if outcome.state == .succeeded {
                    for effect in effects { if let replaced = try effect(connection) { result = replaced } }
                }
                let transaction = TestTransaction(connection: connection)
                let enqueued = try transaction.enqueued()
                let inspected = try inspect(transaction)
                try connection.execute("ROLLBACK")
                return JobRun(jobID: job.id, state: outcome.state, result: result, error: outcome.error,
                              reportedCost: rehearsal.reportedCost, enqueued: enqueued, inspected: inspected)
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }
}
