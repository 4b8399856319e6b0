import Foundation
import Threading

/// The natural offline provider: Piper's neural voices (VITS models in ONNX), spoken by the
/// field's own runtime (`piper-tts` from PyPI) in long-lived helper processes
/// (``PiperHelperPool``), each keeping the voices it loaded.
///
/// Voices are Piper voice files (`NAME.onnx` + `NAME.onnx.json`) in `REPARTO_PIPER_VOICES`
/// (``PiperConfiguration``); ids are the file name without `.onnx`, and `MODEL#SPEAKER` for each
/// speaker of a multi-speaker model (``PiperVoiceModel``). A file that is missing, truncated or
/// not a Piper voice is one ``SpeechError/invalidVoiceFile(path:reason:)`` naming it.
///
/// ``SynthesisOptions/speed`` becomes Piper's `length_scale` (the model's own ÷ speed); Piper has
/// no pitch, so ``SynthesisOptions/pitch`` is ignored; ``SynthesisOptions/volume`` is a gain
/// applied afterwards (``setsVolume`` is false). Each line comes back as a 16-bit mono WAV at the
/// voice's own sample rate (22050 Hz for `medium` voices).
public struct PiperProvider: VoiceProvider, ConfigurationHinting {
    /// `piper`.
    public static let providerID = "piper"
    public var id: String { Self.providerID }
    public var displayName: String { "Piper (offline, neural)" }
    public var outputMimeType: String { "audio/wav" }
    public var requiresAPIKey: Bool { false }
    public var maxCharactersPerRequest: Int
    /// Where Piper runs and where its voices are.
    public let configuration: PiperConfiguration
    /// Words per minute at speed 1.0, for duration estimates.
    public var baseWordsPerMinute: Int = 160
    private let givenHelpers: PiperHelperPool?
    private let cache = PiperVoiceCatalogCache()

    /// - Parameters:
    ///   - environment: read for ``PiperConfiguration``.
    ///   - maxCharactersPerRequest: longer text is chunked by ``SpeechSynthesizer``.
    ///   - helpers: the pool to speak with (nil: the process's shared pool for the configured Python).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, maxCharactersPerRequest: Int = 5_000,
                helpers: PiperHelperPool? = nil) {
        self.init(configuration: PiperConfiguration(environment: environment), maxCharactersPerRequest: maxCharactersPerRequest,
                  helpers: helpers)
    }

    public init(configuration: PiperConfiguration, maxCharactersPerRequest: Int = 5_000, helpers: PiperHelperPool? = nil) {
        self.configuration = configuration
        self.maxCharactersPerRequest = maxCharactersPerRequest
        self.givenHelpers = helpers
    }

    /// The pool lines are spoken by (nil: no Python configured). Helpers start at the first line.
    public var helpers: PiperHelperPool? {
        if let givenHelpers { return givenHelpers }
        return configuration.python.map {
            PiperHelperPool.shared(python: $0, size: configuration.helpers, threadsPerHelper: configuration.threadsPerHelper)
        }
    }

    /// The voices and broken voice files now in ``PiperConfiguration/voicePaths``, read off the
    /// cooperative pool (and read again only when a file there changed).
    public func voiceCatalog() async throws -> PiperVoiceCatalog {
        let cache = self.cache, paths = configuration.voicePaths
        return try await BlockingWork.run { cache.catalog(paths) }
    }

    private var hasPython: Bool {
        configuration.python.map { FileManager.default.isExecutableFile(atPath: $0.path) } ?? false
    }

    /// When a Python is there and at least one voice file is usable.
    public var isConfigured: Bool {
        configuration.problem == nil && hasPython && !cache.catalog(configuration.voicePaths).models.isEmpty
    }

    public var configurationHint: String {
        if let problem = configuration.problem { return problem }
        guard hasPython else {
            let named = configuration.python.map { " (\($0.path) is not there)" } ?? ""
            return "run scripts/services up (it installs piper-tts into .reparto/piper/venv) or set "
                + "\(PiperConfiguration.pythonVariable) to a Python with piper-tts\(named)"
        }
        let catalog = cache.catalog(configuration.voicePaths)
        let searched = configuration.voicePaths.isEmpty ? "nothing is searched" : configuration.voicePaths.joined(separator: ":")
        return "no Piper voice: put NAME.onnx and NAME.onnx.json in a directory of \(PiperConfiguration.voicesVariable) (\(searched))"
            + (catalog.problems.first.map { "; " + (catalog.problems.count > 1 ? "\(catalog.problems.count) broken files, the first: " : "") + "\($0.error)" } ?? "")
    }

    public func voices(language: String?) async throws -> [Voice] {
        let catalog = try await voiceCatalog()
        if catalog.models.isEmpty, let problem = catalog.problems.first(where: { $0.modelID != nil }) { throw problem.error }
        return catalog.voices(provider: id).filter { $0.speaks(language) }
    }

    public func synthesize(text: String, voice: String, language: String?, options: SynthesisOptions) async throws -> SynthesizedAudio {
        let text = Self.plainText(try SpeechText.validated(text, limit: maxCharactersPerRequest))
        guard configuration.problem == nil, hasPython, let helpers else {
            throw SpeechError.notConfigured(provider: id, hint: configurationHint)
        }
        let (model, speaker) = try await voiceCatalog().resolve(voice)
        let request = PiperRequest(modelPath: model.modelPath, configPath: model.configPath, text: text, speaker: speaker,
                                   lengthScale: model.lengthScale / options.boundedSpeed)
        return try await helpers.synthesize(request).audio.wav(provider: id)
    }

    /// `text` with nothing Piper reads as markup: `[[…]]` would be taken as raw phonemes, and a NUL
    /// would end the text early in espeak-ng.
    static func plainText(_ text: String) -> String {
        var text = text.replacingOccurrences(of: "\0", with: " ")
        while text.contains("[[") { text = text.replacingOccurrences(of: "[[", with: "[ [") }
        return text
    }

    public func estimateDuration(text: String, options: SynthesisOptions) -> TimeInterval {
        Self.wordBasedEstimate(text: text, wordsPerMinute: Double(baseWordsPerMinute) * options.boundedSpeed)
    }
}
