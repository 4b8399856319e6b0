import SpeechJobs
import ArgumentParser
import Foundation
import Logging
import Postgres
import Speech
import TerminalText

/// `reparto voices [list] [--provider P] [--language L] [--json] [--no-cache] [--refresh]`: a
/// provider's voices; `reparto voices preview VOICE`: a sample spoken into a WAV file;
/// `reparto voices providers [list|enable ID|disable ID]`: the providers' state in PostgreSQL.
public struct VoicesCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "voices",
        abstract: "List voices (default), preview one, or list, enable and disable speech providers.",
        discussion: "API keys come from ELEVENLABS_API_KEY / OPENAI_API_KEY or the files named by …_FILE, never from flags.",
        subcommands: [VoicesListCommand.self, VoicePreviewCommand.self, VoiceProvidersCommand.self],
        defaultSubcommand: VoicesListCommand.self
    )

    public init() {}
}

/// `reparto voices [list]`: a provider's voices, through the shared `voice_cache` when a database
/// is configured, straight from the provider otherwise.
struct VoicesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the voices of a speech provider (espeak-ng, flite, piper, elevenlabs, openai).",
        discussion: """
            With a database configured (REPARTO_DATABASE_URL or .reparto/env) the listing comes from the \
            voice_cache table while it is fresh (24 h) and is stored there otherwise, so workers and this \
            command share it; if the database cannot be reached, the provider is asked directly (with a warning).
            """
    )

    @OptionGroup var cluster: ClusterOptions

    @Option(name: .long, help: "Provider id (default: espeak-ng).") var provider: String?
    @Option(name: .long, help: "Only voices for this language (e.g. en, de, en-us).") var language: String?
    @Flag(name: .long, help: "Print JSON instead of a table.") var json = false
    @Flag(name: .customLong("no-cache"), help: "Ask the provider directly, without the database cache.") var noCache = false
    @Flag(name: .long, help: "Ask the provider and replace the cached listing.") var refresh = false

    func validate() throws {
        if noCache && refresh { throw ValidationError("--no-cache and --refresh exclude each other") }
    }

    func run() async throws {
        let provider = try VoiceProviderRegistry.standard(environment: cluster.configuration.variables).configuredProvider(provider)
        let voices: [Voice]
        if try !noCache && cluster.hasDatabase, let postgres = await connectOrWarn() {
            do {
                let catalog = VoiceCatalog(postgres: postgres)
                if refresh {
                    voices = try await provider.voices(language: language)
                    try await catalog.store(voices, provider: provider.id, language: language)
                } else {
                    voices = try await catalog.voices(provider: provider, language: language)
                }
                await postgres.shutdown()
            } catch {
                await postgres.shutdown()
                throw error
            }
        } else {
            voices = try await provider.voices(language: language)
        }
        if let piper = provider as? PiperProvider {
            // Piper's files are read here anyway: say which are broken, and give each model's details.
            let catalog = try await piper.voiceCatalog()
            for problem in catalog.problems { FileHandle.standardError.write(Data("warning: \(problem.error)\n".utf8)) }
            if !json {
                print(VoiceText.piperVoices(voices, catalog: catalog))
                return
            }
        }
        print(json ? try JSONText.pretty(voices) : VoiceText.voices(voices))
    }

    /// A pool on the configured database, or nil with one warning line when it cannot be reached.
    private func connectOrWarn() async -> PostgresClient? {
        do {
            return try await cluster.connectPostgres(maxConnections: 1, logger: cluster.makeLogger("reparto.voices"))
        } catch {
            FileHandle.standardError.write(Data("warning: voice cache unavailable (\(error)); asking the provider directly\n".utf8))
            return nil
        }
    }
}

/// `reparto voices providers [list] | enable ID | disable ID`: an alias of `reparto providers`
/// scoped to speech (the same commands, ``SpeechProviders``), printing what it always printed.
struct VoiceProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "List the speech providers with their state, or enable / disable one (an alias of `reparto providers`).",
        discussion: """
            The state lives in the database: workers record their providers (and whether they are \
            configured) when they start; an operator's enable/disable reaches running workers within 5 s. A \
            generate job whose item names a disabled provider fails permanently and writes nothing. An id that \
            also generates (openai) is switched for both.
            """,
        subcommands: [ProvidersListCommand<SpeechProviders>.self, ProvidersEnableCommand<SpeechProviders>.self,
                      ProvidersDisableCommand<SpeechProviders>.self],
        defaultSubcommand: ProvidersListCommand<SpeechProviders>.self
    )
}

extension ClusterOptions {
    /// True when a database URL is given by flag, environment or env file.
    var hasDatabase: Bool {
        get throws { try configuration[Self.databaseURLVariable] != nil }
    }
}
