import Foundation
import Jobs
import TableRead
import Postgres
import Speech

/// The job kinds and production plans this build of `reparto` knows.
enum Kinds {
    /// The registry of every kind; `postgres` is the pool handlers that read the database use
    /// (a worker passes its own; commands that only validate parameters pass none).
    static func registry(environment: EnvironmentValues = EnvironmentValues(envFile: nil),
                         postgres: PostgresClient? = nil, assetsRoot root: URL? = nil,
                         espeakHelpers: EspeakHelperPool? = nil) -> JobRegistry {
        let registry = JobRegistry.withBuiltins()
        PipelineKinds.register(in: registry, environment: PipelineEnvironment(
            assetsRoot: root ?? assetsRoot(environment), postgres: postgres, espeakHelpers: espeakHelpers))
        return registry
    }

    /// The shared asset volume: `REPARTO_ASSETS`, else `.reparto/assets`.
    static func assetsRoot(_ environment: EnvironmentValues) -> URL {
        URL(fileURLWithPath: environment["REPARTO_ASSETS"] ?? ".reparto/assets")
    }

    static func plans() -> [any ProductionPlan] {
        PipelineKinds.plans
    }
}
