import AssetSweep
import Assets
import Foundation
import Generation
import ProductionKit
import ProviderControl
import Postgres
import RepartoConfiguration
import RepartoRuntime
import Speech
import SpeechJobs

/// What this build of `reparto` runs, assembled from ``ProductionTypes/all`` and the shared
/// capabilities (speech, generation, the asset sweep): the composition root that workers, the
/// coordinator and the CLI share.
public enum Kinds {
    /// The registry of every kind; `postgres` is the pool handlers that read the database use
    /// (a worker passes its own; commands that only validate parameters pass none).
    /// - Parameter configuration: the merged view (flags > environment > env file) the kinds'
    ///   components read: the providers' API keys, the espeak-ng engine, the asset volume.
    public static func registry(configuration: ConfigurationValues,
                                postgres: PostgresClient? = nil, assetsRoot root: URL? = nil,
                                speechHelpers: SpeechHelperPool? = nil) -> JobRegistry {
        let registry = JobRegistry.withBuiltins()
        let assets = root ?? ClusterSettings.assetsRoot(configuration)
        // The capabilities every type may use.
        SpeechJob.register(in: registry, environment: SpeechEnvironment(
            assetsRoot: assets, variables: configuration.variables, postgres: postgres, speechHelpers: speechHelpers))
        GenerationKinds.register(in: registry, environment: GenerationEnvironment(assetsRoot: assets, configuration: configuration, postgres: postgres))
        AssetSweepJob.register(in: registry, assetsRoot: assets, postgres: postgres, configuration: configuration, references: assetReferences)
        let environment = ProductionEnvironment(assetsRoot: assets, configuration: configuration, postgres: postgres)
        for type in ProductionTypes.all { type.register(in: registry, environment: environment) }
        registry.alias(SpeechJob.formerKindNames.merging(GenerationKinds.formerKindNames) { $1 })
        for type in ProductionTypes.all { registry.alias(type.formerKindNames) }
        return registry
    }

    /// Fails with one line when a provider's API key is set both ways or its file cannot be read,
    /// so a worker says so when it starts instead of failing every job of that provider.
    public static func checkProviderSecrets(_ configuration: ConfigurationValues) throws(ConfigurationError) {
        let capabilities = [ElevenLabsProvider.Configuration.apiKeyVariable, OpenAISpeechProvider.Configuration.apiKeyVariable, "ANTHROPIC_API_KEY"]
        for variable in capabilities + ProductionTypes.all.flatMap({ $0.secretVariables }) {
            _ = try configuration.secret(variable)
        }
    }

    /// The runtime's migrations: `REPARTO_MIGRATIONS` (from any layer), else where ``Migrator/defaultDirectory()`` finds them.
    public static func migrationsDirectory(_ configuration: ConfigurationValues) -> URL {
        configuration["REPARTO_MIGRATIONS"].map { URL(fileURLWithPath: $0) } ?? Migrator.defaultDirectory()
    }

    /// Every migration line of this build: the runtime's (files in `runtimeDirectory`, else
    /// ``migrationsDirectory(_:)``), the capabilities' and each production type's (compiled in).
    public static func migrationLines(_ configuration: ConfigurationValues, runtimeDirectory: URL? = nil) throws(MigrationError) -> [MigrationLine] {
        var lines = [try MigrationLine.load(name: MigrationLine.runtime, dependsOn: [],
                                            directory: runtimeDirectory ?? migrationsDirectory(configuration))]
        lines.append(try SpeechMigrations.line())
        lines.append(try GenerationMigrations.line())
        lines.append(try ProviderDirectory.migrations())
        for type in ProductionTypes.all { lines.append(try type.migrations()) }
        return try Migrator.ordered(lines)
    }

    /// What each production type's rows name on the asset volume (the sweep keeps all of it).
    public static var assetReferences: [AssetReferences] { ProductionTypes.all.flatMap { $0.assetReferences } }

    /// The plans the coordinator drives, every type's.
    public static func plans() -> [any ProductionPlan] { ProductionTypes.all.flatMap { $0.plans } }

    /// The `ops.*` views `reparto status` and the dashboard show: the runtime's, then each type's.
    public static var opsViews: [OpsView] { OpsView.runtime + ProductionTypes.all.flatMap { $0.opsViews } }

    /// Production `id`'s results, from whichever type it is (nil when none has it).
    public static func results(of id: UUID, environment: ProductionEnvironment) async throws -> (any ProductionReport)? {
        for type in ProductionTypes.all {
            if let report = try await type.results(of: id, environment: environment) { return report }
        }
        return nil
    }
}
