import Foundation
import RepartoRuntime

/// What one job run by ``JobTester`` did.
public struct JobRun<Inspected: Sendable>: Sendable {
    /// The id the job ran under (the handler's ``JobContext/jobID``).
    public let jobID: UUID
    /// What a worker would have recorded: `succeeded`, `failed` (to be retried) or `dead`.
    public let state: JobOutcome.State
    /// The job's result (JSON), as stored: an effect's return replaces the handler's.
    public let result: Data?
    /// The error a worker would have recorded, for a failed attempt.
    public let error: String?
    /// The cost the handler reported against its limit's budget.
    public let reportedCost: Double?
    /// The jobs its effects inserted, in insertion order.
    public let enqueued: [EnqueuedJob]
    /// What the inspection read inside the transaction, before it was rolled back.
    public let inspected: Inspected

    public var succeeded: Bool { state == .succeeded }

    /// The result decoded as `type`.
    /// - Throws: ``JobTestError/noResult`` when the job stored none; the decoder's error otherwise.
    public func result<R: Decodable>(as type: R.Type) throws -> R {
        guard let result else { throw JobTestError.noResult(state: state.rawValue, error: error) }
        return try JSONDecoder.jobs.decode(R.self, from: result)
    }

    /// The enqueued jobs of `P`'s kind, their parameters decoded.
    public func enqueued<P: JobParameters>(_ type: P.Type) throws -> [P] {
        try enqueued.filter { $0.kind == P.kind }.map { try JSONDecoder.jobs.decode(P.self, from: $0.parameters) }
    }
}

/// One job inserted by a tested job's effects.
public struct EnqueuedJob: Sendable, Equatable {
    public let id: UUID
    public let kind: String
    public let queue: String
    public let productionID: UUID?
    public let stage: String?
    /// Its parameters (JSON).
    public let parameters: Data
}

/// What ``JobRun`` cannot give.
public enum JobTestError: Error, Sendable, Equatable, CustomStringConvertible {
    case noResult(state: String, error: String?)

    public var description: String {
        switch self {
        case .noResult(let state, let error): "the job stored no result (\(state)\(error.map { ": \($0)" } ?? ""))"
        }
    }
}
