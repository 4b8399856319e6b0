import Assets
import Foundation
import Postgres
import Speech

/// What kinds that speak need from the process (the speech kind, the table read's): the asset
/// volume, the database (for kinds that read what earlier stages stored) and the environment
/// (provider API keys are read from it, never from arguments).
public struct SpeechEnvironment: Sendable {
    /// Root of the shared asset volume (`REPARTO_ASSETS`).
    public var assetsRoot: URL
    /// Environment variables (for provider configuration).
    public var variables: [String: String]
    /// The worker's pool; kinds that read the database (enrich, assemble) need it and fail their
    /// jobs with a clear error without it.
    public var postgres: PostgresClient?
    /// espeak-ng and flite helper processes, for a process running several workers (nil: the
    /// process's one in-process synthesizer per engine).
    public var speechHelpers: SpeechHelperPool?

    public init(assetsRoot: URL, variables: [String: String] = ProcessInfo.processInfo.environment,
                postgres: PostgresClient? = nil, speechHelpers: SpeechHelperPool? = nil) {
        self.assetsRoot = assetsRoot
        self.variables = variables
        self.postgres = postgres
        self.speechHelpers = speechHelpers
    }
}
