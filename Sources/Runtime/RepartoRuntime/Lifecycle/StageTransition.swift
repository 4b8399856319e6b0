import Foundation

/// What the coordinator writes for a production whose stage ran out of work, decided from its
/// plan's ``StageDecision`` and the production's snapshot. Pure: the coordinator carries it out in
/// the transaction that locked the production row.
enum StageTransition: Equatable {
    /// Move the production to `stage` and insert `jobs` (stamped with the production and stage).
    case move(stage: String, jobs: [JobRequest])
    /// End the production: `completed_with_failures` when `withFailures`, else `completed`.
    case finish(withFailures: Bool)

    static func decide(_ decision: StageDecision, for production: ProductionSnapshot) -> StageTransition {
        switch decision {
        case .next(let stage, let jobs):
            return .move(stage: stage, jobs: jobs.map { job in
                var job = job
                job.options.productionID = production.id
                job.options.stage = stage
                return job
            })
        case .finish:
            return .finish(withFailures: JobLifecycle.finishesWithFailures(dead: production.dead))
        }
    }
}
