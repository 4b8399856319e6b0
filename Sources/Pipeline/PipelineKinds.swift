import Jobs

/// Registers the screenplay pipeline's job kinds with a worker's registry.
public enum PipelineKinds {
    public static func register(in registry: JobRegistry, environment: PipelineEnvironment) {
        _ = (registry, environment) // each kind adds its registration line here
        ParseJob.register(in: registry, environment: environment)
        GenerateJob.register(in: registry, environment: environment)
    }
}
