import Foundation
import Postgres
import Providers
import RepartoConfiguration

/// What the generation kinds need from the process that runs them.
public struct GenerationEnvironment: Sendable {
    /// Root of the asset volume (images and long texts are written under `cache/`).
    public var assetsRoot: URL
    /// The providers jobs may name.
    public var providers: GenerationProviderRegistry
    /// The worker's pool: reuse look-ups, provider switches; nil: no reuse across jobs, every
    /// provider enabled (rows are still written through the job's transaction).
    public var postgres: PostgresClient?

    public init(assetsRoot: URL, providers: GenerationProviderRegistry, postgres: PostgresClient?) {
        (self.assetsRoot, self.providers, self.postgres) = (assetsRoot, providers, postgres)
    }

    /// The standard providers configured from `configuration`.
    public init(assetsRoot: URL, configuration: ConfigurationValues, postgres: PostgresClient?) {
        self.init(assetsRoot: assetsRoot, providers: .standard(values: configuration), postgres: postgres)
    }
}
