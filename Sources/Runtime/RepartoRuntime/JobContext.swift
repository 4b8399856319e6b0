import Foundation
import Logging
import Postgres
import Synchronization

/// What a handler knows about the job it runs, and how it commits database effects.
public struct JobContext: Sendable {
    public let jobID: UUID
    public let kind: String
    /// 1 for the first attempt.
    public let attempt: Int
    public let maxAttempts: Int
    public let productionID: UUID?
    public let stage: String?
    /// The limit the job was admitted under (`provider:openai`), nil when none; a handler that
    /// moves on to work another limit governs hands the job over with
    /// ``JobError/continueUnder(limit:reason:)``.
    public let limitKey: String?
    /// The error the job's previous attempt left (nil on its first run): after a
    /// ``JobError/continueUnder(limit:reason:)``, that reason.
    public let previousError: String?
    /// A logger whose every line carries `job_id` and `production_id`.
    public let logger: Logger
    let effects: EffectList

    init(jobID: UUID, kind: String, attempt: Int, maxAttempts: Int, productionID: UUID?, stage: String?, limitKey: String? = nil,
         previousError: String? = nil, logger: Logger) {
        self.limitKey = limitKey
        self.previousError = previousError
        self.jobID = jobID
        self.kind = kind
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.productionID = productionID
        self.stage = stage
        var logger = logger
        // Formatted only when a line is logged: an id's text was a twentieth of a worker's CPU
        // for jobs that log nothing.
        logger[metadataKey: "job_id"] = .stringConvertible(jobID)
        if let productionID { logger[metadataKey: "production_id"] = .stringConvertible(productionID) }
        self.logger = logger
        self.effects = EffectList()
    }

    /// Reports what the job actually cost against its limit's budget (e.g. the tokens an LLM
    /// reported), replacing the estimate it was admitted with (``JobOptions/cost``).
    public func reportCost(_ actual: Double) {
        effects.reportCost(actual)
    }

    /// The cost reported with ``reportCost(_:)``, if any.
    var reportedCost: Double? { effects.cost }

    /// Registers database work to commit in the same transaction that marks this job succeeded.
    ///
    /// The worker commits completions in batches; each job's effects run under a savepoint, so a
    /// failing effect fails only its own job. If the job's completion is not applied (another
    /// worker finished it first, or it was cancelled) its effects are not applied either: a job's
    /// effect is committed at most once, exactly when its success is.
    public func transactional(_ effect: @escaping @Sendable (PostgresConnection) throws -> Void) {
        effects.append { connection in
            try effect(connection)
            return nil
        }
    }

    /// Like ``transactional(_:)``, and the value the effect returns becomes the job's result
    /// (replacing what the handler returned): for results that depend on what the database
    /// already held, such as "this document was stored before".
    public func transactionalResult<R: Encodable & Sendable>(_ effect: @escaping @Sendable (PostgresConnection) throws -> R) {
        effects.append { connection in try JSONEncoder.jobs.encode(effect(connection)) }
    }
}

/// A database effect of a job; a non-nil return value replaces the job's result (JSON).
typealias JobEffect = @Sendable (PostgresConnection) throws -> Data?

/// The effects one job registered, and the cost it reported.
final class EffectList: Sendable {
    private let list = Mutex<[JobEffect]>([])
    private let reported = Mutex<Double?>(nil)
    func append(_ effect: @escaping JobEffect) { list.withLock { $0.append(effect) } }
    var all: [JobEffect] { list.withLock { $0 } }
    func reportCost(_ cost: Double) { reported.withLock { $0 = max(0, cost) } }
    var cost: Double? { reported.withLock { $0 } }
}
