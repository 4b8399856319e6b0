import SpeechJobs
import Assets
import Foundation
import RepartoRuntime
import Postgres
import Screenplay
import Speech
import Threading

/// The `enrich` job kind of the table-read pipeline: document-level facts and the cast.
///
/// Reads the production's parsed document and stores, in the transaction that marks the job
/// succeeded: characters (dialogue lines, words, first appearance, scenes), scenes (INT/EXT,
/// location, time of day, length in eighths), the page count and runtime estimate, the cast
/// (`casts`, owner `production:<id>`) and the speakable lines with their voices and content keys
/// (`production_lines`), which the generate stage fans out over. Re-running it replaces those
/// rows, so a redelivery or retry is harmless.
public struct EnrichJob: JobParameters {
    public static let kind = "table-read.enrich"
    public static let queue = "enrich"

    /// The table-read production to enrich.
    public var productionID: UUID

    public init(productionID: UUID) {
        self.productionID = productionID
    }

    /// What an `enrich` job returns.
    public struct Result: Codable, Sendable, Hashable {
        public var characters: Int
        public var scenes: Int
        public var lines: Int
        public var pageCount: Double
        public var estimatedSeconds: Double
        public var provider: String
        public var language: String
    }

    /// Registers the kind: providers come from `environment.variables`, the document from
    /// `environment.postgres` (without a database every job fails with that reason).
    public static func register(in registry: JobRegistry, environment: SpeechEnvironment,
                                providers: VoiceProviderRegistry? = nil) {
        let providers = providers ?? VoiceProviderRegistry.standard(environment: environment.variables, speechHelpers: environment.speechHelpers)
        let postgres = environment.postgres
        let root = environment.assetsRoot
        registry.register(EnrichJob.self, timeout: 300) { parameters, context in
            guard let postgres else { throw JobError.permanent("enrich: this worker has no database connection") }
            return try await run(parameters, context: context, postgres: postgres, providers: providers, assetsRoot: root)
        }
    }

    static func run(_ job: EnrichJob, context: JobContext, postgres: PostgresClient,
                    providers: VoiceProviderRegistry, assetsRoot: URL) async throws -> Result {
        let productionID = job.productionID
        let loaded = try await postgres.withConnection { connection -> (TableReadRequest, ScreenplayDocument)? in
            guard let (request, documentID) = try TableReadRows.context(productionID, on: connection),
                  let documentID, let document = try DocumentRows.load(documentID, on: connection) else { return nil }
            return (request, document)
        }
        guard let (request, document) = loaded else {
            throw JobError.permanent("enrich: production \(productionID) has no parsed document")
        }
        let analysis = ScriptAnalysis(document: document)
        let proposal: CastProposal
        do {
            proposal = try await CastingDirector.propose(document: document, registry: providers, overrides: request.cast)
        } catch let error as SpeechError where !error.isRetryable {
            throw JobError.permanent("enrich: casting failed: \(error.description)")
        }
        let cast = proposal.cast
        let allLines = Self.lines(document: document, analysis: analysis, cast: cast, announceCharacters: request.announceCharacters,
                                  lexicon: request.lexicon, phonemeAlphabets: providers.phonemeAlphabets)
        let lines = try request.scope.map { try Self.scoped(allLines, to: $0, analysis: analysis, document: document) } ?? allLines
        context.logger.debug("enriched production", metadata: [
            "characters": "\(analysis.characters.count)", "scenes": "\(analysis.scenes.count)", "lines": "\(lines.count)",
        ])
        // Audio recorded in the database whose file is gone (a volume restored from an older
        // backup, a cache cleared by hand) is forgotten, so the generate stage makes it again.
        let recorded = try await postgres.withConnection { connection in
            try TableReadRows.recordedAudio(Array(Set(lines.map(\.contentKey))), on: connection)
        }
        let vanished = try await BlockingWork.run { () throws -> [String] in
            let store = try AssetStore(root: assetsRoot)
            return recorded.filter { !store.exists($0.value) }.map(\.key)
        }
        if !vanished.isEmpty {
            context.logger.warning("audio files missing on the asset volume; they will be generated again",
                                   metadata: ["count": "\(vanished.count)"])
        }
        context.transactional { connection in
            try TableReadRows.storeEnrichment(productionID, analysis: analysis, cast: cast, lines: lines,
                                              choices: proposal.choices, on: connection)
            try TableReadRows.forgetAudio(vanished, on: connection)
        }
        return Result(characters: analysis.characters.count, scenes: analysis.scenes.count, lines: lines.count,
                      pageCount: analysis.pageCount, estimatedSeconds: analysis.estimatedSeconds,
                      provider: cast.provider, language: cast.language)
    }

    /// The lines `scope` selects.
    /// - Throws: a permanent ``JobError`` when the scope does not fit the script or selects nothing.
    static func scoped(_ lines: [TableReadLine], to scope: TableReadScope, analysis: ScriptAnalysis,
                       document: ScreenplayDocument) throws -> [TableReadLine] {
        do {
            try scope.validate(sceneCount: analysis.scenes.count, known: CastingDirector.characters(of: document))
        } catch {
            throw JobError.permanent("enrich: \(error.description)")
        }
        let selected = scope.select(lines, scene: \.sceneIndex, speaker: \.speaker)
        guard !selected.isEmpty else { throw JobError.permanent("enrich: \(TableReadScopeError.nothingSelected(scope))") }
        return selected
    }

    /// The speakable lines of `document` with the voice of each and the content key of its audio.
    ///
    /// With a `lexicon`, a line's provider gets its words as phonemes when `phonemeAlphabets`
    /// says the provider reads the entry's alphabet, else respelled; the content key hashes that
    /// text and the role's options with the line's delivery applied, so only the lines they change
    /// get new audio.
    public static func lines(document: ScreenplayDocument, analysis: ScriptAnalysis, cast: Cast,
                             announceCharacters: Bool, lexicon: PronunciationLexicon? = nil,
                             phonemeAlphabets: [String: PhonemeAlphabet] = [:]) -> [TableReadLine] {
        var rules = SpeakableRules()
        rules.announceCharacters = announceCharacters
        return rules.items(for: document).map { item in
            let role = cast.role(for: item.role)
            let spoken = lexicon?.spokenText(item.text, alphabet: phonemeAlphabets[role.provider]) ?? item.text
            var line = TableReadLine(chapterIndex: item.chapterIndex, orderIndex: item.orderIndex,
                                     elementType: item.elementType.rawValue, speaker: item.role.description, voice: role.voice,
                                     provider: role.provider, language: cast.language, text: item.text, contentKey: "",
                                     sceneIndex: analysis.sceneIndex(chapter: item.chapterIndex, order: item.orderIndex),
                                     spokenText: spoken == item.text ? nil : spoken, delivery: item.delivery, options: role.options)
            line.contentKey = ContentKey.speech(provider: role.provider, voice: role.voice, language: cast.language,
                                                options: line.synthesisOptions, text: spoken).description
            return line
        }
    }
}
