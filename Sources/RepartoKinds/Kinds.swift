import Analysis
import Assets
import Foundation
import Generation
import Jobs
import TableRead
import BookImport
import Postgres
import RepartoConfiguration
import Speech

/// The job kinds and production plans this build of `reparto` knows: the composition root that
/// workers, the coordinator and the CLI share (a new production type registers its kinds here).
public enum Kinds {
    /// The registry of every kind; `postgres` is the pool handlers that read the database use
    /// (a worker passes its own; commands that only validate parameters pass none).
    /// - Parameter configuration: the merged view (flags > environment > env file) the kinds'
    ///   components read: the speech providers' API keys, the espeak-ng engine, the asset volume.
    public static func registry(configuration: ConfigurationValues,
                         postgres: PostgresClient? = nil, assetsRoot root: URL? = nil,
                         speechHelpers: SpeechHelperPool? = nil) -> JobRegistry {
        let registry = JobRegistry.withBuiltins()
        PipelineKinds.register(in: registry, environment: PipelineEnvironment(
            assetsRoot: root ?? assetsRoot(configuration), variables: configuration.variables,
            postgres: postgres, speechHelpers: speechHelpers, assetReferences: assetReferences))
        let generation = GenerationEnvironment(assetsRoot: root ?? assetsRoot(configuration), configuration: configuration, postgres: postgres)
        GenerationKinds.register(in: registry, environment: generation)
        AnalysisKinds.register(in: registry, environment: generation)
        // A Google Books key that breaks the secret rule leaves Google Books out here;
        // `checkProviderSecrets` makes a worker refuse to start with that line.
        let bookServices = (try? BookServiceSettings(configuration: configuration)) ?? BookServiceSettings(
            openLibraryURL: configuration[BookServiceSettings.openLibraryVariable] ?? "https://openlibrary.org",
            googleBooksURL: configuration[BookServiceSettings.googleBooksVariable] ?? "https://www.googleapis.com")
        BookImportKinds.register(in: registry, assetsRoot: root ?? assetsRoot(configuration), postgres: postgres,
                                 services: bookServices)
        return registry
    }

    /// Fails with one line when a speech provider's API key is set both ways or its file cannot
    /// be read, so a worker says so when it starts instead of failing every job of that provider.
    public static func checkProviderSecrets(_ configuration: ConfigurationValues) throws(ConfigurationError) {
        for variable in [ElevenLabsProvider.Configuration.apiKeyVariable, OpenAISpeechProvider.Configuration.apiKeyVariable,
                         "ANTHROPIC_API_KEY", BookServiceSettings.googleBooksKeyVariable] {
            _ = try configuration.secret(variable)
        }
    }

    /// The shared asset volume: `REPARTO_ASSETS`, else `.reparto/assets`.
    public static func assetsRoot(_ configuration: ConfigurationValues) -> URL {
        URL(fileURLWithPath: configuration["REPARTO_ASSETS"] ?? ".reparto/assets")
    }

    /// The migrations: `REPARTO_MIGRATIONS` (from any layer), else where ``Migrator/defaultDirectory()`` finds them.
    public static func migrationsDirectory(_ configuration: ConfigurationValues) -> URL {
        configuration["REPARTO_MIGRATIONS"].map { URL(fileURLWithPath: $0) } ?? Migrator.defaultDirectory()
    }

    /// What each production type's rows name on the asset volume (the sweep keeps all of it).
    public static let assetReferences: [AssetReferences] = [
        TableReadAssets.references, BookImportKinds.assetReferences, AnalysisKinds.assetReferences,
    ]

    public static func plans() -> [any ProductionPlan] {
        PipelineKinds.plans + AnalysisKinds.plans + BookImportKinds.plans
    }
}
