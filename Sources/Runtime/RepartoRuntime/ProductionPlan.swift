import Foundation
import Postgres

/// What the coordinator does when a production's stage has no job left to run.
public enum StageDecision: Sendable {
    /// Start `stage` with these jobs (they are inserted in the same transaction).
    case next(stage: String, jobs: [JobRequest])
    /// The production is over.
    case finish
}

/// Drives a production through its stages: the fan-in point of a pipeline.
///
/// The coordinator calls ``advance(_:on:)`` exactly once per finished stage, inside the
/// transaction that records the transition (the production row is locked and its stage checked,
/// so two coordinators cannot both advance it). It runs on the coordinator's own database
/// thread: blocking calls on `connection` are expected; do not start async work here.
public protocol ProductionPlan: Sendable {
    /// The name stored in `productions.plan`.
    var name: String { get }
    @available(*, noasync)
    func advance(_ production: ProductionSnapshot, on connection: PostgresConnection) throws -> StageDecision
}

/// A production of one stage: done when its jobs are.
public struct BatchPlan: ProductionPlan {
    public init() {}
    public var name: String { "batch" }
    public func advance(_ production: ProductionSnapshot, on connection: PostgresConnection) throws -> StageDecision { .finish }
}
