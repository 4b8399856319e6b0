import Foundation
import Screenplay

/// Gives every character a voice that fits it, deterministically.
///
/// 1. The script is read (``CharacterProfiles``): which cues are one person, and each person's
///    gender and age, with evidence. Unknown stays unknown.
/// 2. The cast file wins: a name it lists (a cue or a person) gets that voice, whatever the
///    inference says; it may name any voice of any configured provider (`flite:slt`), novelty
///    variants included.
/// 3. The narrator gets the override, else the first provider's first voice for the language —
///    unless that voice is synthetic (espeak-ng, flite) and the pools have natural ones
///    (``VoiceTraits/natural``: Piper, a Kokoro server, OpenAI): then the first natural voice, the
///    first provider's before the others'.
/// 4. People are cast in order of dialogue lines (ties by name). The leads — the three biggest
///    parts and everyone with at least ``leadLines`` lines, at most ``maximumLeads`` — each get
///    the castable voice of their gender (``VoiceMetadata``) farthest from the narrator and the
///    leads cast before (``VoiceTraits/distance(to:sameProvider:)``), preferring voices that suit
///    their age; among the voices they may take, natural ones when there are any.
/// 5. No two speaking characters share a voice while a castable voice of their gender is unused:
///    unused voices go first (for a lead, and for a minor character, natural ones first; a
///    minor takes the one suiting its age and farthest from its scene partners' voices). Once
///    every voice of a gender is taken, a minor character shares the one least used by the
///    characters it shares a scene with; someone who must share a voice with a scene partner
///    anyway (flite has one woman's voice) is pitched apart.
/// 6. A person's other cues speak with the same voice, with an age adjustment (``ageOptions(shift:)``);
///    a group cue speaks with its first member's voice; a chorus cue (`ALL`, `BOTH`) with the narrator's.
///
/// No Swift `hashValue`, dictionary or set order reaches the result: same script, providers and
/// overrides ⇒ same cast, on every machine.
public enum CastingDirector {
    /// Default language when neither the cast nor the document says.
    public static let defaultLanguage = "en"
    /// Engines cast together when no provider is named: the default one plus every other configured
    /// here (Piper's id is `piper`). An OpenAI-compatible server other than OpenAI's own joins them
    /// too when it names its voices (``joinsOfflineEngines(_:)``).
    public static let offlineEngines = [EspeakProvider.providerID, FliteProvider.providerID, "piper"]
    /// A person with at least this many lines is a lead.
    public static let leadLines = 10
    /// At most this many leads.
    public static let maximumLeads = 12

    /// Upper-cased, trimmed, inner whitespace collapsed: `" Isolde  Marie "` → `"ISOLDE MARIE"`.
    public static func normalize(_ name: String) -> String {
        CharacterCue.normalize(name)
    }

    /// The document's language from its title page (`Language:` or `Lang:`), if any.
    public static func language(of document: ScreenplayDocument) -> String? {
        document.titlePage.first { ["language", "lang"].contains($0.key.lowercased().trimmingCharacters(in: .whitespaces)) }?
            .values.first?.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// The distinct normalized character names of `document`, in order of first appearance.
    public static func characters(of document: ScreenplayDocument) -> [String] {
        var seen = Set<String>()
        var out: [String] = []
        for e in document.elements where e.type == .character {
            let name = normalize(e.name ?? SpeakableRules.cueName(e.plainText))
            if !name.isEmpty, seen.insert(name).inserted { out.append(name) }
        }
        return out
    }

    /// The speed and pitch of a person's cue `shift` age bands from its main age (negative:
    /// younger, so higher and a little quicker); nil for 0.
    public static func ageOptions(shift: Int) -> SynthesisOptions? {
        guard shift != 0 else { return nil }
        let s = Double(max(-3, min(3, shift)))
        return SynthesisOptions(speed: ((1 - 0.05 * s) * 100).rounded() / 100, pitch: max(5, min(95, 50 - 8 * Int(s))))
    }

    // MARK: documents

    /// The providers to cast from: the one the overrides name; else the default provider and, when
    /// it is one of ``offlineEngines``, every other configured engine of them and a configured
    /// OpenAI-compatible server other than OpenAI's (``joinsOfflineEngines(_:)``), in registration
    /// order. Paid services (OpenAI's API, ElevenLabs) are cast from only when named.
    public static func providers(registry: VoiceProviderRegistry, overrides: CastOverrides) throws(SpeechError) -> [any VoiceProvider] {
        if let named = overrides.provider { return [try registry.configuredProvider(named)] }
        let main = try registry.configuredProvider(nil)
        guard offlineEngines.contains(main.id) else { return [main] }
        return [main] + registry.all.filter {
            $0.id != main.id && $0.isConfigured && (offlineEngines.contains($0.id) || joinsOfflineEngines($0))
        }
    }

    /// True for a configured OpenAI-compatible speech server that is not OpenAI's own API: a server
    /// someone runs (Kokoro-FastAPI). It is cast from with the offline engines when its voices
    /// come from its listing or `OPENAI_TTS_VOICES` (a server with neither — a text-only server
    /// such as Ollama behind the same `OPENAI_BASE_URL` — or one that cannot be reached is left
    /// out, and ``CastProposal/leftOut`` says why).
    public static func joinsOfflineEngines(_ provider: any VoiceProvider) -> Bool {
        guard let server = provider as? OpenAISpeechProvider else { return false }
        return server.isConfigured && !server.configuration.isOfficial
    }

    /// Casts a whole document: provider(s) from the overrides or the registry (see
    /// ``providers(registry:overrides:)``), language from the overrides, else the title page, else
    /// ``defaultLanguage``. A cast file naming a voice of another configured provider adds that provider.
    public static func propose(document: ScreenplayDocument, registry: VoiceProviderRegistry,
                               overrides: CastOverrides = CastOverrides()) async throws -> CastProposal {
        try overrides.validate()
        var providers = try providers(registry: registry, overrides: overrides)
        let castFrom = providers.count
        let known = registry.all.map(\.id)
        let named = ([overrides.narrator].compactMap { $0 } + overrides.characters.keys.sorted().compactMap { overrides.characters[$0] })
            .compactMap { CastOverrides.reference($0, providers: known).provider }
        for id in named where !providers.contains(where: { $0.id == id }) {
            providers.append(try registry.configuredProvider(id))
        }
        let language = overrides.language ?? language(of: document) ?? defaultLanguage
        var pools: [VoicePool] = []
        var leftOut: [String] = []
        var poolCount = castFrom
        for (index, provider) in providers.enumerated() {
            // A server that joined without being named: only with voices it (or OPENAI_TTS_VOICES) names.
            if index > 0, index < castFrom, let server = provider as? OpenAISpeechProvider, joinsOfflineEngines(server),
               !named.contains(server.id) {
                do {
                    let listing = try await server.voiceListing(language: language)
                    guard listing.source != .documented else {
                        leftOut.append("\(server.id): lists no voices (GET /v1/audio/voices) and OPENAI_TTS_VOICES is not set")
                        poolCount -= 1
                        continue
                    }
                    pools.append(VoicePool(provider: server.id, voices: listing.voices))
                } catch {
                    leftOut.append("\(server.id): \(error)")
                    poolCount -= 1
                }
                continue
            }
            pools.append(VoicePool(provider: provider.id, voices: try await provider.voices(language: language)))
        }
        let analysis = ScriptAnalysis(document: document)
        var proposal = try propose(profiles: CharacterProfiles(document: document, analysis: analysis), pools: pools,
                                   language: language, overrides: overrides, castFrom: poolCount)
        proposal.leftOut = leftOut.isEmpty ? nil : leftOut
        return proposal
    }

    /// ``propose(document:registry:overrides:)``'s cast.
    public static func cast(document: ScreenplayDocument, registry: VoiceProviderRegistry,
                            overrides: CastOverrides = CastOverrides()) async throws -> Cast {
        try await propose(document: document, registry: registry, overrides: overrides).cast
    }

    /// Casts `characters` (names only, so no gender or age is known) from `voices` of one provider.
    ///
    /// - Throws: ``SpeechError/unknownVoice(_:provider:)`` when an override names a voice that is
    ///   not in `voices`; ``SpeechError/invalidCast(reason:)`` when `voices` is empty.
    public static func cast(characters: [String], voices: [Voice], provider: String, language: String,
                            overrides: CastOverrides = CastOverrides()) throws(SpeechError) -> Cast {
        var elements: [Element] = []
        var seen = Set<String>()
        for name in characters.map(normalize) where !name.isEmpty && seen.insert(name).inserted {
            elements += [Element(type: .character, text: name, name: name), Element(type: .dialogue, text: "…")]
        }
        let document = ScreenplayDocument(format: .fountain, elements: elements)
        var single = overrides
        single.provider = single.provider ?? provider
        return try propose(profiles: CharacterProfiles(document: document), pools: [VoicePool(provider: provider, voices: voices)],
                           language: language, overrides: single).cast
    }

    // MARK: the casting itself

    /// Casts `profiles` from `pools` (the first pool's provider narrates).
    /// - Parameter castFrom: how many of the first pools automatic casting draws from (the rest
    ///   are there only for voices the overrides name); default all.
    /// - Throws: ``SpeechError/invalidCast(reason:)`` for an empty first pool,
    ///   ``SpeechError/unknownVoice(_:provider:)`` / ``SpeechError/unknownProvider(_:)`` for an
    ///   override naming a voice or provider not in `pools`.
    public static func propose(profiles: CharacterProfiles, pools: [VoicePool], language: String,
                               overrides: CastOverrides = CastOverrides(), castFrom: Int? = nil) throws(SpeechError) -> CastProposal {
        try overrides.validate()
        guard let main = pools.first else { throw .invalidCast(reason: "no voice provider to cast from") }
        guard let firstVoice = main.voices.first else {
            throw .invalidCast(reason: "provider \(main.provider) has no voices for language \(language)")
        }
        var casting = Casting(pools: pools, castFrom: castFrom ?? pools.count, profiles: profiles)
        let defaultProvider = overrides.provider ?? main.provider
        let narrator: CastRole = try overrides.narrator.map { value throws(SpeechError) in
            try casting.resolve(value, defaultProvider: defaultProvider)
        } ?? casting.defaultNarrator(main) ?? CastRole(provider: main.provider, voice: firstVoice.id)
        casting.narrator = narrator
        var fixed: [String: CastRole] = [:]
        for name in overrides.characters.keys.sorted() {
            guard let value = overrides.characters[name] else { continue }
            fixed[normalize(name)] = try casting.resolve(value, defaultProvider: defaultProvider)
        }
        let choices = casting.run(fixed: fixed)
        var characters: [String: CastRole] = [:]
        for choice in choices {
            characters[choice.name] = CastRole(provider: choice.provider, voice: choice.voice, options: choice.options)
        }
        let cast = Cast(provider: narrator.provider, language: language, narrator: narrator.voice, characters: characters)
        return CastProposal(cast: cast, providers: pools.prefix(castFrom ?? pools.count).map(\.provider), choices: choices)
    }
}
