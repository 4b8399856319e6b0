import SpeechJobs
import ProductionKit
import ArgumentParser
import Foundation
import RepartoRuntime
import RepartoConfiguration
import Speech

/// The options `submit` and `run` share: how the script is cast and read.
public struct TableReadOptions: ParsableArguments {
    @OptionGroup var castFlags: CastFlags
    @Flag(help: "Announce each dialogue block (\"ISOLDE says\").") var announceCharacters = false
    @Option(help: "Priority of the production's jobs: high, normal or low.") var priority: JobPriority = .normal
    @Option(help: "Speakable lines per speech job (1 to 100).") var linesPerJob: Int = 1
    @Option(help: "Production name (default: the file name).") var name: String?
    @Option(help: "Files to deliver: wav (always), mp3, m4b, comma-separated.") var formats: String = "wav"
    @Option(help: "Master for where the audio goes: podcast (-16 LUFS, true peak -1 dBTP) or acx (ACX/Audible: -20 dB RMS, peaks <= -3 dB, room tone; always adds the 192 kbit/s CBR MP3).")
    var master: String = AudioMaster.podcast.rawValue
    @Option(help: "Read only these scenes, e.g. 3-7 or 2,5,9-11 (numbered from 1).") var scenes: String?
    @Option(help: "Read only these characters' lines and the cue before each, e.g. ISOLDE,DEV.") var characters: String?
    @Option(help: "Pronunciation lexicon (YAML or JSON): WORD: respelling, or WORD: {phonemes, alphabet, respelling}.") var lexicon: String?

    public init() {}

    /// The submission options, with the cast file and the flags merged (flags win).
    /// - Parameter configuration: the merged view the speech providers are configured from.
    public func submissionOptions(configuration: ConfigurationValues) throws -> TableReadClient.Options {
        let audioMaster: AudioMaster
        do { audioMaster = try AudioMaster(parsing: master) } catch { throw CLIError(error.description) }
        let overrides = try castFlags.overrides()
        let registry = VoiceProviderRegistry.standard(environment: configuration.variables)
        do { _ = try registry.provider(overrides.provider) } catch { throw CLIError(error.description) }
        guard (1...100).contains(linesPerJob) else { throw CLIError("--lines-per-job must be between 1 and 100") }
        var scope: TableReadScope?
        do {
            if let scenes { scope = TableReadScope(scenes: try TableReadScope.scenes(parsing: scenes)) }
            if let characters { scope = TableReadScope(scenes: scope?.scenes, characters: try TableReadScope.characters(parsing: characters)) }
        } catch {
            throw CLIError("--\(error.description)")
        }
        return TableReadClient.Options(cast: overrides, announceCharacters: announceCharacters, priority: priority,
                                       linesPerJob: linesPerJob, name: name, formats: try AudioFileFormat.list(parsing: formats), scope: scope,
                                       lexicon: try lexicon.map(Self.loadLexicon), master: audioMaster)
    }

    /// The lexicon file at `path`, or one error line naming the file and the first bad entry.
    public static func loadLexicon(_ path: String) throws -> PronunciationLexicon {
        do { return try PronunciationLexicon.load(from: URL(fileURLWithPath: path)) } catch {
            throw CLIError("\(path): \(error.description)")
        }
    }
}
