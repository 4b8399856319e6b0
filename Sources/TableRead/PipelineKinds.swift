import Jobs
import Speech

/// Registers the screenplay pipeline's job kinds with a worker's registry.
public enum PipelineKinds {
    /// The production plans of the pipeline (the coordinator drives them).
    public static var plans: [any ProductionPlan] { [TableReadPlan()] }

    /// Registers parse, enrich, generate and assemble, and the asset volume's sweep.
    /// - Parameter providers: voice providers for casting and synthesis; nil: the standard ones,
    ///   configured from `environment.variables` (tests and embedders pass their own).
    public static func register(in registry: JobRegistry, environment: PipelineEnvironment,
                                providers: VoiceProviderRegistry? = nil) {
        ParseJob.register(in: registry, environment: environment)
        EnrichJob.register(in: registry, environment: environment, providers: providers)
        if let providers {
            let generator = SpeechGenerator(providers: providers, assetsRoot: environment.assetsRoot,
                                            postgres: environment.postgres)
            registry.register(GenerateJob.self, timeout: GenerateJob.timeout) { parameters, context in
                try await generator.run(parameters, context: context)
            }
        } else {
            GenerateJob.register(in: registry, environment: environment)
        }
        AssembleJob.register(in: registry, environment: environment)
        AssetSweepJob.register(in: registry, environment: environment)
    }
}
