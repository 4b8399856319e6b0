import Foundation
import Jobs
import Pipeline

/// The job kinds and production plans this build of `reparto` knows.
enum Kinds {
    static func registry(environment: EnvironmentValues = EnvironmentValues(envFile: nil)) -> JobRegistry {
        let registry = JobRegistry.withBuiltins()
        let assets = environment["REPARTO_ASSETS"] ?? ".reparto/assets"
        PipelineKinds.register(in: registry, environment: PipelineEnvironment(assetsRoot: URL(fileURLWithPath: assets)))
        return registry
    }

    static func plans() -> [any ProductionPlan] {
        []
    }
}
