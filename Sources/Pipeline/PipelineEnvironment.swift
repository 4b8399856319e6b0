import Foundation

/// What the pipeline's job kinds need from the process: the asset volume and the environment
/// (provider API keys are read from it, never from arguments).
public struct PipelineEnvironment: Sendable {
    /// Root of the shared asset volume (`REPARTO_ASSETS`).
    public var assetsRoot: URL
    /// Environment variables (for provider configuration).
    public var variables: [String: String]

    public init(assetsRoot: URL, variables: [String: String] = ProcessInfo.processInfo.environment) {
        self.assetsRoot = assetsRoot
        self.variables = variables
    }
}
