import Assets
import Dispatch
import Foundation
import Generation
import RepartoRuntime
import Logging
import Postgres
import Speech
import Synchronization
import Threading

/// The `speech.synthesize` job kind: speaks a small batch of lines and records each result in the
/// `generated_content` table.
///
/// Each line is content-addressed by ``ContentKey/speech(provider:voice:language:options:text:)``
/// and produced through ``AssetStore/reuseOrProduce(_:fileExtension:mimeType:produce:)``, so the
/// same (provider, voice, language, options, text) is never synthesized twice. The rows are
/// inserted with `ON CONFLICT (content_key) DO NOTHING` in the transaction that marks the job
/// succeeded, so a redelivered job neither duplicates rows nor files.
///
/// The whole batch is validated before anything is synthesized: empty text, an unknown provider,
/// an unconfigured provider, an unknown voice or owner kind fail the job permanently with a reason,
/// and no file is written for any line of it.
///
/// ```swift
/// try await client.enqueue(SpeechJob(items: [
///     .init(text: "Hello.", voice: "en-us", owner: .init(kind: .document, id: "doc-1")),
/// ]))
/// ```
public struct SpeechJob: JobParameters {
    /// `speech.synthesize`.
    public static let kind = "speech.synthesize"
    /// `generate`: synthesis runs on workers that consume this queue.
    public static let queue = "generate"
    /// The provider used when an item names none.
    public static let defaultProvider = EspeakProvider.providerID
    /// Seconds one attempt may run.
    public static let timeout: Double = 600
    /// The kind's former names (old → new): jobs stored under them still run.
    public static let formerKindNames = ["generate": kind]

    /// What a generated row belongs to (the `owner_kind` / `owner_id` columns).
    public struct Owner: Codable, Sendable, Hashable {
        /// The `owner_kind` column.
        public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
            case element, document, identifier, none
        }
        public var kind: Kind
        /// The owner's id (nil exactly when `kind` is `none`); an element is `document/chapter/order`.
        public var id: String?

        public init(kind: Kind, id: String?) {
            self.kind = kind
            self.id = id
        }

        /// Unowned content.
        public static let unassigned = Owner(kind: .none, id: nil)
    }

    /// One line to speak.
    public struct Item: Codable, Sendable, Hashable {
        /// The exact text to speak (not empty, not only whitespace).
        public var text: String
        /// The provider's voice id (espeak-ng: `en-us`, `en-us+Alicia`).
        public var voice: String
        /// The provider id; nil: ``SpeechJob/defaultProvider``.
        public var provider: String?
        /// The language passed to the provider (nil: the voice's own).
        public var language: String?
        /// Synthesis options; nil: ``SynthesisOptions/standard``.
        public var options: SynthesisOptions?
        /// What the generated row belongs to; nil: ``Owner/unassigned``.
        public var owner: Owner?

        public init(text: String, voice: String, provider: String? = nil, language: String? = nil,
                    options: SynthesisOptions? = nil, owner: Owner? = nil) {
            (self.text, self.voice, self.provider, self.language, self.options, self.owner)
                = (text, voice, provider, language, options, owner)
        }

        /// The provider id after defaulting.
        public var providerID: String { provider ?? SpeechJob.defaultProvider }
        /// The options after defaulting.
        public var effectiveOptions: SynthesisOptions { options ?? .standard }

        /// The content key of this line's audio.
        public var contentKey: ContentKey {
            .speech(provider: providerID, voice: voice, language: language, options: effectiveOptions, text: text)
        }
    }

    /// The lines to speak, in order (keep batches small: one attempt speaks all of them).
    public var items: [Item]

    /// `provider:NAME` when every item uses one provider: the job runs under that provider's
    /// limit when one is defined (`reparto limit set provider:elevenlabs --rate 2/s`).
    public var limitKey: String? {
        let providers = Set(items.map(\.providerID))
        return providers.count == 1 ? providers.first.map { "provider:\($0)" } : nil
    }

    /// A provider's 429 with `Retry-After` becomes "retry at" (rescheduled without spending an
    /// attempt, and the provider's limit held back until then); any other error stays as it is.
    public static func jobError(for error: SpeechError, now: Date = Date()) -> any Error {
        guard let after = error.retryAfter else { return error }
        return JobError.retryAt(now.addingTimeInterval(max(0, after)), reason: "\(error)")
    }

    public init(items: [Item]) {
        self.items = items
    }

    /// What a `speech.synthesize` job returns: one entry per item, in order.
    public struct Result: Codable, Sendable, Hashable {
        /// One generated line.
        public struct Entry: Codable, Sendable, Hashable {
            /// `speech:<sha256>`, the `content_key` column.
            public var contentKey: String
            /// Path of the WAV file relative to the asset root.
            public var path: String
            public var sha256: String
            public var sizeBytes: Int64
            public var durationSeconds: Double
            /// True when the audio already existed and was not synthesized again.
            public var reused: Bool
        }
        public var items: [Entry]
    }

    /// Registers the kind with `registry`: audio goes to `environment.assetsRoot`, providers are
    /// configured from `environment.variables`.
    ///
    /// With a database (`environment.postgres`), a worker records its providers in
    /// `voice_providers` when it starts running, refuses items whose provider an operator disabled (the flags
    /// are remembered for `providerStateLifetime`), and validates voices against the shared
    /// `voice_cache` (``VoiceCatalog``).
    /// - Returns: the generator behind the handler (tests await ``SpeechGenerator/providersRecorded()``).
    @discardableResult
    public static func register(in registry: JobRegistry, environment: SpeechEnvironment,
                                providerStateLifetime: Duration = .seconds(5)) -> SpeechGenerator {
        let generator = SpeechGenerator(providers: .standard(environment: environment.variables, speechHelpers: environment.speechHelpers),
                                        assetsRoot: environment.assetsRoot, postgres: environment.postgres,
                                        providerStateLifetime: providerStateLifetime)
        if environment.postgres != nil {
            // When a worker starts, not now: registering must not connect (a process that exits
            // while libpq is connecting on another thread can crash in OpenSSL's exit cleanup).
            registry.onWorkerStart {
                do { try await generator.providersRecorded() } catch {
                    // Not fatal: the first job records them again before it reads the flags.
                    Logger(label: "reparto.generate").warning("could not record voice providers: \(error)")
                }
            }
        }
        registry.register(SpeechJob.self, timeout: timeout) { parameters, context in
            do {
                return try await generator.run(parameters, context: context)
            } catch let error as SpeechError {
                throw SpeechJob.jobError(for: error)
            }
        }
        return generator
    }
}

/// The work behind a `speech.synthesize` job, separate from registration so tests can give it their own providers.
public struct SpeechGenerator: Sendable {
    /// The providers items may name.
    public var providers: VoiceProviderRegistry
    /// Root of the asset volume the audio is written to.
    public var assetsRoot: URL
    /// Most items one job may carry.
    public var maximumItems: Int
    private let voiceMemo: VoiceListMemo
    /// The operator's enabled flags (and this worker's record of its providers) in `voice_providers`.
    public let providerGate: VoiceProviderGate
    /// Opened once, here (creating the root blocks briefly on the file system, so not in a task);
    /// nil when that failed, and then opened again per job off the cooperative pool.
    private let openedStore: AssetStore?

    /// - Parameters:
    ///   - postgres: the worker's pool; nil: no provider switches (all enabled) and voice listings
    ///     only remembered in this process.
    ///   - providerStateLifetime: how long the `enabled` flags are remembered.
    public init(providers: VoiceProviderRegistry, assetsRoot: URL, maximumItems: Int = 100,
                postgres: PostgresClient? = nil, providerStateLifetime: Duration = .seconds(5)) {
        self.providers = providers
        self.assetsRoot = assetsRoot
        self.maximumItems = maximumItems
        self.voiceMemo = VoiceListMemo(catalog: postgres.map { VoiceCatalog(postgres: $0) })
        self.providerGate = VoiceProviderGate(directory: postgres.map { VoiceProviderDirectory(postgres: $0) },
                                              registry: providers, lifetime: providerStateLifetime)
        self.openedStore = try? AssetStore(root: assetsRoot)
    }

    /// Records the providers in `voice_providers` (done once; a no-op without a database).
    public func providersRecorded() async throws {
        try await providerGate.recordProviders()
    }

    /// Validates the batch, produces (or reuses) each line's audio and registers the
    /// `generated_content` rows to commit with the job's success.
    /// - Throws: ``JobError/permanent(_:)`` for a batch no retry can fix; ``SpeechError`` or
    ///   ``AssetError`` otherwise (retried when their `isRetryable` says so).
    public func run(_ job: SpeechJob, context: JobContext) async throws -> SpeechJob.Result {
        try await validate(job)
        let store = try await self.store()
        var entries: [SpeechJob.Result.Entry] = []
        var rows: [GeneratedContentRow] = []
        var usage: [UsageEntry] = []
        for (index, item) in job.items.enumerated() {
            let key = item.contentKey
            let synthesizer = SpeechSynthesizer(registry: providers)
            let produced = ProducedAudio()
            let (record, reused) = try await store.reuseOrProduce(key, fileExtension: "wav", mimeType: "audio/wav") {
                let audio = try await synthesizer.synthesize(text: item.text, provider: item.providerID, voice: item.voice,
                                                             language: item.language, options: item.effectiveOptions)
                produced.keep(audio.data)
                return audio.data
            }
            // Audio just written (and hashed) from memory is measured from memory; reused audio is
            // read back and checked against its SHA-256.
            let data: Data
            if !reused, let fresh = produced.take() { data = fresh } else {
                data = try await store.readVerified(record.path, sha256: record.sha256)
            }
            let levels: AudioLevels
            do { levels = try AudioLevels(wav: data) } catch {
                throw JobError.permanent("item \(index): \(record.path) is not a readable WAV file: \(error)")
            }
            let owner = item.owner ?? SpeechJob.Owner.unassigned
            rows.append(GeneratedContentRow(
                id: UUID(), mimeType: "audio/wav", ownerKind: owner.kind.rawValue, ownerID: owner.id,
                filePath: record.path, sizeBytes: record.size, sha256: record.sha256, contentKey: key.description,
                durationSeconds: levels.duration, peakDBFS: levels.peakDBFS.finiteOrNil, rmsDBFS: levels.rmsDBFS.finiteOrNil,
                jobID: context.jobID))
            entries.append(.init(contentKey: key.description, path: record.path, sha256: record.sha256, sizeBytes: record.size,
                                 durationSeconds: levels.duration, reused: reused))
            // One ledger line per line spoken: the voice is the model; a reuse records zeros.
            usage.append(reused
                ? UsageEntry(jobID: context.jobID, productionID: context.productionID, provider: item.providerID,
                             model: item.voice, capability: "speech", reused: true)
                : UsageEntry(jobID: context.jobID, productionID: context.productionID, provider: item.providerID,
                             model: item.voice, capability: "speech", characters: item.text.count,
                             audioSeconds: levels.duration))
            context.logger.debug("generated line", metadata: ["item": "\(index)", "reused": "\(reused)", "path": "\(record.path)"])
        }
        let batch = rows
        let ledger = usage
        for entry in ledger { UsageMetrics.record(entry) }
        context.transactional { connection in
            for row in batch { try row.insert(on: connection) }
            for entry in ledger { try GenerationRows.insertUsage(entry, on: connection) }
        }
        return SpeechJob.Result(items: entries)
    }

    /// The asset store, opening it on a Dispatch queue if it could not be opened at start.
    private func store() async throws -> AssetStore {
        if let openedStore { return openedStore }
        let root = assetsRoot
        return try await BlockingWork.run { try AssetStore(root: root) }
    }

    /// Checks every item before any audio is produced, so a bad batch writes nothing.
    /// - Throws: ``JobError/permanent(_:)`` naming the first bad item.
    public func validate(_ job: SpeechJob) async throws {
        guard !job.items.isEmpty else { throw JobError.permanent("generate: no items") }
        guard job.items.count <= maximumItems else {
            throw JobError.permanent("generate: \(job.items.count) items, at most \(maximumItems) per job")
        }
        for (index, item) in job.items.enumerated() {
            func fail(_ reason: String) -> JobError { .permanent("generate: item \(index): \(reason)") }
            if item.text.allSatisfy(\.isWhitespace) { throw fail(SpeechError.emptyText.description) }
            if item.voice.trimmingCharacters(in: .whitespaces).isEmpty { throw fail("no voice given") }
            let owner = item.owner ?? SpeechJob.Owner.unassigned
            switch owner.kind {
            case .none: if owner.id != nil { throw fail("owner kind 'none' takes no id") }
            default: if (owner.id ?? "").isEmpty { throw fail("owner kind '\(owner.kind.rawValue)' needs an id") }
            }
            let provider: any VoiceProvider
            do { provider = try providers.provider(item.providerID) } catch { throw fail("\(error)") }
            guard try await providerGate.isEnabled(provider.id) else { throw fail(SpeechError.providerDisabled(provider.id).description) }
            do { _ = try providers.configuredProvider(provider.id) } catch { throw fail("\(error)") }
            let known: Bool
            do { known = try await voiceMemo.isKnown(item.voice, provider: provider, language: item.language) } catch {
                if let speech = error as? SpeechError, !speech.isRetryable { throw fail(speech.description) }
                throw error
            }
            if !known { throw fail(SpeechError.unknownVoice(item.voice, provider: provider.id).description) }
        }
    }
}

/// Remembers providers' voice listings for a few minutes, so validating a batch does not list
/// voices (an HTTP call for remote providers) for every job. With a ``VoiceCatalog`` a miss reads
/// the shared `voice_cache` row (fetched from the provider and stored only when it expired), so
/// workers share one listing.
actor VoiceListMemo {
    private var lists: [String: ExpiringMemo<Set<String>>] = [:]
    private let lifetime: Duration = .seconds(300)
    private let catalog: VoiceCatalog?

    init(catalog: VoiceCatalog?) {
        self.catalog = catalog
    }

    /// True when `provider` offers `voice`: listed for `language`, for all languages, or (a
    /// `base+variant` id like espeak-ng's) listed for its base language.
    func isKnown(_ voice: String, provider: any VoiceProvider, language: String?) async throws -> Bool {
        var languages: [String?] = [language, nil]
        if let plus = voice.firstIndex(of: "+") { languages.append(String(voice[..<plus])) }
        for lang in languages {
            let ids = try await voiceIDs(provider: provider, language: lang)
            if ids.contains(voice) { return true }
        }
        return false
    }

    private func voiceIDs(provider: any VoiceProvider, language: String?) async throws -> Set<String> {
        let key = provider.id + "\u{0}" + (language ?? "")
        if let hit = lists[key]?.value(at: .now) { return hit }
        let voices: [Voice]
        if let catalog { voices = try await catalog.voices(provider: provider, language: language) } else {
            voices = try await provider.voices(language: language)
        }
        // espeak-ng also accepts a language listed under a voice's "Other Languages" (`en`).
        var ids = Set(voices.map(\.id))
        if provider.id == EspeakProvider.providerID, language == nil { ids.formUnion(voices.flatMap(\.languages)) }
        var memo = ExpiringMemo<Set<String>>(lifetime: lifetime)
        memo.store(ids, at: .now)
        lists[key] = memo
        return ids
    }
}

/// Hands the synthesized bytes out of `reuseOrProduce`'s closure.
final class ProducedAudio: Sendable {
    private let data = Mutex<Data?>(nil)
    func keep(_ value: Data) { data.withLock { $0 = value } }
    func take() -> Data? { data.withLock { value in defer { value = nil }; return value } }
}

extension Double {
    /// Nil for -inf (digital silence) and NaN, which the table should not store.
    var finiteOrNil: Double? { isFinite ? self : nil }
}

// Both types already say whether a retry can help; this lets the worker's retry policy see it.
extension SpeechError: RetryableError {}
extension AssetError: RetryableError {}
