import Foundation

/// The offline default provider: espeak-ng, through its library or its command.
///
/// - ``Engine/library`` (the default): libespeak-ng in this process, on a thread of its own
///   (``EspeakLibrary``): the voice data is loaded once, so a line costs a fraction of starting
///   the command; syntheses of one process run one at a time.
/// - ``Engine/process``: the `espeak-ng` binary per line. Text goes through standard input (never
///   argv, so it can never be read as an option), audio comes back on standard output (`--stdout`,
///   16-bit mono PCM WAV at 22050 Hz); the wait happens off Swift's cooperative pool (see
///   `ProcessRunner`) and any number of syntheses run concurrently. Chosen when an executable is
///   given (`ESPEAK_NG_PATH` or `executable:`) or `REPARTO_ESPEAK_ENGINE=process`.
///
/// A process that runs several workers gives the library engine a ``SpeechHelperPool``: helper
/// processes with libespeak-ng each, so lines are spoken in parallel.
///
/// Voice listings come from the command either way (`--voices`, once per provider).
///
/// Voice ids are what `-v` accepts: a language voice as `espeak-ng --voices` lists it (`en-us`),
/// optionally with a variant from `espeak-ng --voices=variant` (`en-us+Alicia`). MBROLA voices are
/// left out unless the `mbrola` binary is installed.
public struct EspeakProvider: VoiceProvider, ConfigurationHinting {
    /// `espeak-ng`.
    public static let providerID = "espeak-ng"
    public var id: String { Self.providerID }
    public var displayName: String { "eSpeak NG (offline)" }
    public var outputMimeType: String { "audio/wav" }
    public var requiresAPIKey: Bool { false }
    public var maxCharactersPerRequest: Int
    /// espeak-ng reads its mnemonics inside `[[...]]` (both engines).
    public var phonemeAlphabet: PhonemeAlphabet? { .espeak }
    /// The amplitude is set in the engine (`-a`, `espeakVOLUME`).
    public var setsVolume: Bool { true }
    /// The binary that is run.
    public let executable: URL
    /// Words per minute at speed 1.0 (espeak-ng's default is 175).
    public var baseWordsPerMinute: Int = 175
    /// How lines are synthesized.
    public let engine: Engine
    /// With the library engine: helper processes to speak several lines at once (nil: this
    /// process's one ``EspeakLibrary``).
    public let helpers: SpeechHelperPool?
    private let cache = EspeakVoiceCache()

    /// Where the synthesis runs.
    public enum Engine: String, Sendable, CaseIterable {
        /// libespeak-ng in this process (``EspeakLibrary``).
        case library
        /// One `espeak-ng` process per synthesis.
        case process
    }

    /// - Parameters:
    ///   - executable: path of `espeak-ng`; default: `$ESPEAK_NG_PATH`, else the first `espeak-ng` on `$PATH`.
    ///   - maxCharactersPerRequest: longer text is chunked by ``SpeechSynthesizer``.
    ///   - engine: default: ``Engine/process`` when `executable` or `$ESPEAK_NG_PATH` names a
    ///     binary or `$REPARTO_ESPEAK_ENGINE` is `process`, else ``Engine/library``.
    public init(executable: URL? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
                maxCharactersPerRequest: Int = 20_000, engine: Engine? = nil, helpers: SpeechHelperPool? = nil) {
        self.executable = executable ?? Self.locate(environment: environment)
        self.maxCharactersPerRequest = maxCharactersPerRequest
        self.engine = engine ?? Self.defaultEngine(explicitExecutable: executable != nil, environment: environment)
        self.helpers = helpers
    }

    static func defaultEngine(explicitExecutable: Bool, environment: [String: String]) -> Engine {
        if explicitExecutable || !(environment["ESPEAK_NG_PATH"] ?? "").isEmpty { return .process }
        return Engine(rawValue: environment["REPARTO_ESPEAK_ENGINE"] ?? "") ?? .library
    }

    public var isConfigured: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }

    public var configurationHint: String {
        "install espeak-ng (apt-get install espeak-ng) or set ESPEAK_NG_PATH"
    }

    static func locate(environment: [String: String]) -> URL {
        if let path = environment["ESPEAK_NG_PATH"], !path.isEmpty { return URL(fileURLWithPath: path) }
        for dir in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(dir)/espeak-ng"
            if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        return URL(fileURLWithPath: "/usr/bin/espeak-ng")
    }

    // MARK: voices

    /// Language voices for `language` (all when nil); for a given language also every variant of
    /// its main voice (`en+Alicia`, …), so a cast can give many characters distinct voices.
    public func voices(language: String?) async throws -> [Voice] {
        let catalog = try await catalog()
        guard let language = language?.lowercased(), !language.isEmpty else { return catalog.languageVoices }
        let base = catalog.languageVoices.filter { $0.speaks(language) }
        guard let main = catalog.mainVoice(for: language) else { return [] }
        let variants = catalog.variants.map { variant in
            Voice(id: "\(main.id)+\(variant.id)", name: "\(main.name) (\(variant.name))",
                  languages: main.languages, gender: variant.gender, provider: id)
        }
        // The main voice first: casting gives it to the narrator.
        return [main] + base.filter { $0.id != main.id } + variants
    }

    /// The variants espeak-ng offers (`--voices=variant`), as voices whose id is the variant name.
    public func variants() async throws -> [Voice] { try await catalog().variants }

    func catalog() async throws -> EspeakCatalog {
        if let cached = await cache.value { return cached }
        guard isConfigured else { throw SpeechError.notConfigured(provider: id, hint: configurationHint) }
        async let languages = run(arguments: ["--voices"])
        async let variants = run(arguments: ["--voices=variant"])
        let hasMbrola = FileManager.default.isExecutableFile(atPath: "/usr/bin/mbrola")
        let catalog = EspeakCatalog(listing: try await languages, variantListing: try await variants,
                                    includeMbrola: hasMbrola, provider: id)
        await cache.store(catalog)
        return catalog
    }

    private func run(arguments: [String]) async throws -> String {
        let output = try await runEngine(arguments: arguments, stdin: Data())
        return String(decoding: output, as: UTF8.self)
    }

    private func runEngine(arguments: [String], stdin: Data) async throws -> Data {
        let result: ProcessRunner.Output
        do {
            result = try await ProcessRunner.run(executable: executable, arguments: arguments, stdin: stdin)
        } catch {
            throw SpeechError.engineNotFound(path: executable.path)
        }
        guard result.status == 0 else {
            let message = String(decoding: result.stderr, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            throw SpeechError.engineFailed(provider: id, exitCode: result.status, message: String(message.prefix(200)))
        }
        return result.stdout
    }

    // MARK: synthesis

    public func synthesize(text: String, voice: String, language: String?, options: SynthesisOptions) async throws -> SynthesizedAudio {
        let text = try SpeechText.validated(text, limit: maxCharactersPerRequest)
        try await catalog().validate(voice: voice, provider: id)
        // Bounded speed, volume and pitch: the products below always fit espeak-ng's int parameters.
        let wordsPerMinute = Int((Double(baseWordsPerMinute) * options.boundedSpeed).rounded())
        // espeak-ng's amplitude: 100 is normal, 200 its documented top.
        let amplitude = Int((100 * min(2, options.boundedVolume)).rounded())
        if engine == .library {
            let pitch = options.boundedPitch
            let output = if let helpers {
                try await helpers.synthesize(EngineRequest(engine: .espeak, text: text, voice: voice, rate: wordsPerMinute, pitch: pitch,
                                                           amplitude: amplitude))
            } else {
                try await EspeakLibrary.shared.synthesize(text: text, voice: voice, wordsPerMinute: wordsPerMinute, pitch: pitch,
                                                          amplitude: amplitude)
            }
            return try output.wav(provider: id)
        }
        var arguments = ["--stdout", "-b", "1", "-v", voice, "-s", String(wordsPerMinute)]
        if options.pitch != nil { arguments += ["-p", String(options.boundedPitch)] }
        if options.volume != nil { arguments += ["-a", String(amplitude)] }
        let raw = try await runEngine(arguments: arguments, stdin: Data(text.utf8))
        do {
            let (data, header) = try WAVWriter.normalized(raw)
            return SynthesizedAudio(data: data, mimeType: outputMimeType, format: header.format, duration: header.duration)
        } catch {
            throw SpeechError.invalidAudio(provider: id, reason: error.description)
        }
    }

    public func estimateDuration(text: String, options: SynthesisOptions) -> TimeInterval {
        Self.wordBasedEstimate(text: text, wordsPerMinute: Double(baseWordsPerMinute) * options.boundedSpeed)
    }
}

/// Caches espeak-ng's voice listing for the life of the provider.
actor EspeakVoiceCache {
    var value: EspeakCatalog?
    func store(_ catalog: EspeakCatalog) { value = catalog }
}

/// espeak-ng's voices and variants, parsed from `--voices` and `--voices=variant`.
struct EspeakCatalog: Sendable {
    var languageVoices: [Voice]
    var variants: [Voice]
    /// Priority per language voice id (lower = preferred), as espeak-ng reports it.
    var priority: [String: Int]

    init(listing: String, variantListing: String, includeMbrola: Bool, provider: String) {
        var voices: [Voice] = []
        var priority: [String: Int] = [:]
        var seen = Set<String>()
        for row in Self.rows(listing) where includeMbrola || !row.file.hasPrefix("mb/") {
            guard !seen.contains(row.language) else { continue }
            seen.insert(row.language)
            let others = row.others.compactMap { $0.split(separator: " ").first.map { String($0) } }
            voices.append(Voice(id: row.language, name: row.name, languages: [row.language] + others,
                                gender: row.gender, provider: provider))
            priority[row.language] = row.priority
        }
        self.languageVoices = voices
        self.priority = priority
        self.variants = Self.rows(variantListing).compactMap { row in
            guard row.file.hasPrefix("!v/") else { return nil }
            return Voice(id: String(row.file.dropFirst(3)), name: row.name, languages: [], gender: row.gender, provider: provider)
        }
    }

    struct Row {
        var priority: Int, language: String, gender: String?, name: String, file: String, others: [String]
    }

    /// Parses the fixed layout `Pty Language Age/Gender VoiceName File Other Languages`.
    static func rows(_ listing: String) -> [Row] {
        listing.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard f.count >= 5, let pty = Int(f[0]) else { return nil }
            let g = f[2].split(separator: "/").last.map(String.init)
            let gender = g == "M" ? "male" : g == "F" ? "female" : nil
            // "Other languages" look like "(en 2)(en-gb 3)".
            let rest = f.dropFirst(5).joined(separator: " ")
            let others = rest.split(separator: "(").map { $0.replacingOccurrences(of: ")", with: "").trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            return Row(priority: pty, language: f[1], gender: gender, name: f[3].replacingOccurrences(of: "_", with: " "),
                       file: f[4], others: others)
        }
    }

    /// The voice espeak-ng itself would pick for `language`: an exact id match, else the best-priority voice speaking it.
    func mainVoice(for language: String) -> Voice? {
        if let exact = languageVoices.first(where: { $0.id.lowercased() == language }) { return exact }
        return languageVoices.filter { $0.speaks(language) }.min { (priority[$0.id] ?? 9, $0.id) < (priority[$1.id] ?? 9, $1.id) }
    }

    /// Accepts `lang` or `lang+variant` when both parts are in the listings.
    func validate(voice: String, provider: String) throws(SpeechError) {
        let parts = voice.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        // espeak-ng also accepts a language it lists under "Other Languages" (`en` → en-gb).
        guard languageVoices.contains(where: { $0.id == parts[0] || $0.languages.contains(parts[0]) }),
              parts.count == 1 || variants.contains(where: { $0.id == parts[1] }) else {
            throw .unknownVoice(voice, provider: provider)
        }
    }
}
