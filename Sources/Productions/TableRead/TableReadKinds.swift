import RepartoRuntime
import Speech
import SpeechJobs

/// Registers the table read's job kinds (`table-read.parse`, `table-read.enrich`,
/// `table-read.assemble`) with a worker's registry; its lines are spoken by the speech kind
/// (`speech.synthesize`, ``SpeechJob``), which the cluster registers for every type.
public enum TableReadKinds {
    /// The production plans of the table read (the coordinator drives them).
    public static var plans: [any ProductionPlan] { [TableReadPlan()] }

    /// Registers the table read's own kinds.
    /// - Parameter providers: voice providers for casting; nil: the standard ones, configured from
    ///   `environment.variables` (tests and embedders pass their own).
    public static func register(in registry: JobRegistry, environment: SpeechEnvironment, providers: VoiceProviderRegistry? = nil) {
        ParseJob.register(in: registry, environment: environment)
        EnrichJob.register(in: registry, environment: environment, providers: providers)
        AssembleJob.register(in: registry, environment: environment)
    }

    /// The table read's kinds and the speech kind it needs, with the same `providers` for casting
    /// and synthesis: a worker of table reads alone, for tests and embedders.
    public static func registerWithSpeech(in registry: JobRegistry, environment: SpeechEnvironment,
                                          providers: VoiceProviderRegistry? = nil) {
        register(in: registry, environment: environment, providers: providers)
        if let providers {
            let generator = SpeechGenerator(providers: providers, assetsRoot: environment.assetsRoot, postgres: environment.postgres)
            registry.register(SpeechJob.self, timeout: SpeechJob.timeout) { parameters, context in
                try await generator.run(parameters, context: context)
            }
        } else {
            SpeechJob.register(in: registry, environment: environment)
        }
    }
}
