import Foundation
import Postgres

/// What a production type reads about its production and its jobs: the Jobs module's public read
/// API, so that no other module names the `jobs`, `productions` or `workers` tables.
///
/// Every function blocks on a connection the caller owns (a plan's ``ProductionPlan/advance(_:on:)``,
/// a job effect, or `PostgresClient.withConnection`), so it sees the caller's transaction.
public enum ProductionJobs {
    /// Which of `ids` have a production row (a pruned or never-created one has none).
    @available(*, noasync)
    public static func existing(_ ids: [UUID], on connection: PostgresConnection) throws -> Set<UUID> {
        try JobStore.existingProductions(ids, on: connection)
    }

    /// The productions still running, whose stages may yet read what earlier ones stored.
    @available(*, noasync)
    public static func running(on connection: PostgresConnection) throws -> [UUID] {
        try JobStore.runningProductions(on: connection)
    }

    /// A production's row.
    @available(*, noasync)
    public static func production(_ id: UUID, on connection: PostgresConnection) throws -> ProductionRecord? {
        try JobStore.production(id, on: connection)
    }

    /// The result of the most recently finished succeeded job of `stage`, if any.
    @available(*, noasync)
    public static func latestResult(production: UUID, stage: String, on connection: PostgresConnection) throws -> Data? {
        try JobStore.latestResult(production: production, stage: stage, on: connection)
    }

    /// True when a job of `stage` succeeded.
    @available(*, noasync)
    public static func stageSucceeded(production: UUID, stage: String, on connection: PostgresConnection) throws -> Bool {
        try JobStore.stageSucceeded(production: production, stage: stage, on: connection)
    }

    /// The production's jobs counted by stage and outcome (in no particular order).
    @available(*, noasync)
    public static func stageCounts(production: UUID, on connection: PostgresConnection) throws -> [StageCount] {
        try JobStore.stageCounts(production: production, on: connection)
    }

    /// The production's jobs that did not succeed (dead, cancelled, or failed and awaiting a retry),
    /// oldest first, at most `limit`.
    @available(*, noasync)
    public static func failures(production: UUID, limit: Int = 1000, on connection: PostgresConnection) throws -> [JobFailure] {
        try JobStore.failures(production: production, limit: limit, on: connection)
    }

    /// The production's dead or cancelled jobs of `kind` with their parameters, in the order they
    /// finished: the caller, which owns the kind, reads its own parameters.
    @available(*, noasync)
    public static func unsuccessfulJobs(production: UUID, kind: String, on connection: PostgresConnection) throws -> [FinishedJob] {
        try JobStore.unsuccessfulJobs(production: production, kind: kind, on: connection)
    }

    /// The production's jobs of `kind` in any of `states`, with their parameters: finished ones in
    /// the order they finished, then the others in the order they were created.
    @available(*, noasync)
    public static func jobs(production: UUID, kind: String, states: [JobState], on connection: PostgresConnection) throws -> [FinishedJob] {
        try JobStore.jobs(production: production, kind: kind, states: states, on: connection)
    }
}

/// A production's row, as ``ProductionJobs/production(_:on:)`` reads it.
public struct ProductionRecord: Sendable, Equatable {
    public var id: UUID
    public var name: String
    /// The production plan's name (`batch`, `table-read`, ...).
    public var plan: String
    /// `running`, `completed`, `completed_with_failures` or `cancelled`.
    public var state: String
    public var stage: String
    /// The parameters stored at creation (JSON).
    public var parameters: Data

}

/// A production's jobs of one stage, counted by outcome.
public struct StageCount: Sendable, Equatable {
    /// The stage (nil for jobs without one).
    public var stage: String?
    public var total: Int
    public var succeeded: Int
    public var dead: Int
    public var cancelled: Int
    /// Jobs not finished yet (queued, running, or failed awaiting a retry).
    public var pending: Int { total - succeeded - dead - cancelled }

}

/// A job of a production that did not succeed.
public struct JobFailure: Sendable, Equatable {
    public var id: UUID
    public var kind: String
    public var stage: String?
    public var state: JobState
    public var lastError: String?

}

/// A job of a production with its state and parameters, as ``ProductionJobs/jobs(production:kind:states:on:)`` reads it.
public struct FinishedJob: Sendable, Equatable {
    public var id: UUID
    public var state: JobState
    public var lastError: String?
    /// The job's parameters (JSON), for the kind that owns them to decode.
    public var parameters: Data

}
