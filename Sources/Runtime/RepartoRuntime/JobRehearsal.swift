import Foundation
import Logging
import Postgres

/// One attempt of one job run by hand, outside a worker, as a worker would run it: parameters
/// decoded and checked, the handler run with a ``JobContext``, and the outcome it would record
/// (a failure classified by the kind's retry policy). Its database effects are handed back
/// unapplied, so the caller decides where they run (RepartoTesting runs them in a transaction it
/// rolls back).
@_spi(Testing)
public struct JobRehearsal: Sendable {
    /// What the worker would record for the attempt, before its effects ran.
    public let outcome: JobOutcome
    /// The effects the handler registered (``JobContext/transactional(_:)``); a non-nil return
    /// replaces the job's result.
    public let effects: [@Sendable (PostgresConnection) throws -> Data?]
    /// The cost the handler reported (``JobContext/reportCost(_:)``).
    public let reportedCost: Double?

    /// Runs attempt `job.attempt` of `job` with the handler `registry` has for its kind.
    /// - Throws: ``JobRequestError`` when no kind of that name is registered.
    public static func run(_ job: ClaimedJob, registry: JobRegistry, logger: Logger) async throws -> JobRehearsal {
        guard let definition = registry.definition(for: job.kind) else {
            throw JobRequestError(description: "unknown job kind '\(job.kind)'")
        }
        let context = JobContext(jobID: job.id, kind: job.kind, attempt: job.attempt, maxAttempts: job.maxAttempts,
                                 productionID: job.productionID, stage: job.stage, limitKey: job.limitKey,
                                 previousError: job.lastError, logger: logger)
        do {
            let result = try await definition.run(job.parameters, context)
            return JobRehearsal(outcome: AttemptDecision.succeeded(job, result: result), effects: context.effects.all,
                                reportedCost: context.reportedCost)
        } catch {
            var generator = SystemRandomNumberGenerator()
            let outcome = AttemptDecision.threw(job, error: error, cancelRequested: false, draining: false, taskCancelled: false,
                                                policy: definition.retryPolicy, using: &generator)
            return JobRehearsal(outcome: outcome, effects: [], reportedCost: context.reportedCost)
        }
    }

    /// A job inserted by the transaction `connection` is in: its id, kind, queue, production,
    /// stage and parameters (JSON).
    public struct Inserted: Sendable, Equatable {
        public var id: UUID
        public var kind: String
        public var queue: String
        public var productionID: UUID?
        public var stage: String?
        public var parameters: Data
    }

    /// The jobs the current transaction inserted (rows whose `xmin` is its id), in insertion order.
    @available(*, noasync)
    public static func inserted(on connection: PostgresConnection) throws -> [Inserted] {
        try connection.query("""
            SELECT id, kind, queue, production_id, stage, params::text AS params FROM jobs
            WHERE xmin::text::bigint = pg_current_xact_id()::text::bigint % 4294967296
            ORDER BY created_at, id
            """).compactMap { row in
                guard let id = row.string("id").flatMap(UUID.init(uuidString:)), let kind = row.string("kind") else { return nil }
                return Inserted(id: id, kind: kind, queue: row.string("queue") ?? "",
                                productionID: row.string("production_id").flatMap(UUID.init(uuidString:)), stage: row.string("stage"),
                                parameters: Data((row.string("params") ?? "{}").utf8))
            }
    }
}
