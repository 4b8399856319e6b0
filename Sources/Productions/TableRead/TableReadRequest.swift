import SpeechJobs
import Foundation
import RepartoRuntime
import Speech

/// What a table-read production was asked to do, stored as its `productions.params`.
///
/// The source file is already on the asset volume (``sourcePath`` is relative to its root), so
/// every worker on every host reads the same bytes.
public struct TableReadRequest: Codable, Sendable, Hashable {
    /// The stages of the `table-read` plan, in order.
    public enum Stage: String, CaseIterable, Sendable {
        case parse, enrich, generate, assemble
    }

    /// The plan name stored in `productions.plan`.
    public static let plan = "table-read"

    /// The script, relative to the asset root.
    public var sourcePath: String
    /// The file name as submitted (for reports).
    public var sourceName: String
    /// `fountain`, `fdx` or `markdown`; nil detects it.
    public var format: String?
    /// Cast overrides (provider, language, narrator and character voices).
    public var cast: CastOverrides
    /// Say "NAME says" before each dialogue block.
    public var announceCharacters: Bool
    /// Speakable lines per `speech.synthesize` job (1: a failing line fails only itself).
    public var linesPerJob: Int
    /// Priority of every job of the production.
    public var priority: JobPriority
    /// Files to deliver besides the WAV master (nil: only the WAV; older requests have none).
    public var formats: [AudioFileFormat]?
    /// The scenes and characters to read (nil: the whole script).
    public var scope: TableReadScope?
    /// How the production's unusual words are said (nil: as written; older requests have none).
    public var lexicon: PronunciationLexicon?
    /// Where the audio goes (nil: ``AudioMaster/podcast``, as every request stored before masters
    /// existed). A name that is not a master fails decoding.
    public var master: AudioMaster?

    public init(sourcePath: String, sourceName: String, format: String? = nil, cast: CastOverrides = CastOverrides(),
                announceCharacters: Bool = false, linesPerJob: Int = 1, priority: JobPriority = .normal,
                formats: [AudioFileFormat]? = nil, scope: TableReadScope? = nil, lexicon: PronunciationLexicon? = nil,
                master: AudioMaster? = nil) {
        self.master = master
        self.formats = formats
        self.scope = scope
        self.lexicon = lexicon
        self.sourcePath = sourcePath
        self.sourceName = sourceName
        self.format = format
        self.cast = cast
        self.announceCharacters = announceCharacters
        self.linesPerJob = linesPerJob
        self.priority = priority
    }

    /// Job options for a job of this production (the coordinator sets production and stage).
    var jobOptions: JobOptions {
        JobOptions(priority: priority)
    }
}
