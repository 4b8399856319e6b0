import Screenplay

/// The voice metadata table, keyed by (provider, voice id): gender, age range, accent, pitch and
/// whether the voice is in the curated pool casting draws from.
///
/// - **espeak-ng**: a voice `lang+variant` takes the variant's row (judged from espeak-ng's variant
///   files, `espeak-ng-data/voices/!v/*`: their `gender`, `pitch` and formant lines) and the accent of
///   `lang`; a bare language voice is espeak-ng's own male voice with that accent. Variants not in
///   the table — the novelty ones (`Demonic`, `UniRobot`, `croak`, `Tweaky`, `robosoft*`, whispers,
///   klatt experiments) — are not castable.
/// - **flite**: `slt` female; `kal`, `kal16`, `rms`, `awb` male (`awb` Scottish).
/// - **openai**: the documented voices (`alloy` neutral); a compatible server's voices named the
///   Kokoro way (`af_bella`, `bm_george`) by their names (``KokoroVoiceName``).
/// - anything else (Piper, ElevenLabs, test providers): the provider's own labels (``Voice/gender``,
///   ``Voice/age``, ``Voice/accent``), castable.
///
/// Every voice is natural or not (``VoiceTraits/natural``): by its ``Voice/quality`` when the
/// provider says, else by provider (``isNatural(_:)``).
public enum VoiceMetadata {
    /// The traits of `voice`.
    public static func traits(of voice: Voice) -> VoiceTraits {
        traits(provider: voice.provider, id: voice.id, fallback: voice)
    }

    /// The traits of voice `id` of `provider`; `fallback` supplies labels for voices not in the table.
    public static func traits(provider: String, id: String, fallback: Voice? = nil) -> VoiceTraits {
        var traits = tableTraits(provider: provider, id: id, fallback: fallback)
        traits.natural = (fallback?.quality).map { $0 == .natural } ?? isNatural(provider)
        return traits
    }

    /// Providers whose voices are neural models: `openai` (and the compatible servers it reaches),
    /// `elevenlabs`, `piper`. espeak-ng and flite are rule-based; an unknown provider is not counted natural.
    public static let naturalProviders: Set<String> = [OpenAISpeechProvider.providerID, ElevenLabsProvider.providerID, "piper"]

    /// True when `provider`'s voices are natural (``naturalProviders``).
    public static func isNatural(_ provider: String) -> Bool {
        naturalProviders.contains(provider)
    }

    static func tableTraits(provider: String, id: String, fallback: Voice?) -> VoiceTraits {
        switch provider {
        case EspeakProvider.providerID:
            let parts = id.split(separator: "+", maxSplits: 1).map(String.init)
            let accent = espeakAccent(parts.first ?? id)
            guard parts.count == 2 else {
                return VoiceTraits(gender: .male, youngest: .youngAdult, oldest: .adult, accent: accent, pitch: 100, family: "espeak")
            }
            guard var traits = espeakVariants[parts[1]] else {
                return VoiceTraits(gender: labelGender(fallback?.gender), accent: accent, family: parts[1], castable: false)
            }
            traits.accent = accent
            return traits
        case FliteProvider.providerID:
            if let traits = flite[id] { return traits }
        case OpenAISpeechProvider.providerID:
            if let traits = openAI[id] { return traits }
            if let kokoro = KokoroVoiceName(id) {
                let (youngest, oldest) = labelAges(fallback?.age)
                return VoiceTraits(gender: kokoro.gender, youngest: youngest, oldest: oldest, accent: fallback?.accent ?? kokoro.accent,
                                   family: provider + ":" + id)
            }
        default:
            break
        }
        let (youngest, oldest) = labelAges(fallback?.age)
        return VoiceTraits(gender: labelGender(fallback?.gender), youngest: youngest, oldest: oldest,
                           accent: fallback?.accent, family: provider + ":" + id)
    }

    static func labelGender(_ label: String?) -> Gender? {
        switch label?.lowercased() {
        case "female", "f", "woman": return .female
        case "male", "m", "man": return .male
        default: return nil
        }
    }

    static func labelAges(_ label: String?) -> (AgeGroup, AgeGroup) {
        switch label?.lowercased() {
        case "young": return (.teen, .youngAdult)
        case "middle aged", "middle-aged", "middle_aged": return (.adult, .adult)
        case "old": return (.senior, .senior)
        default: return (.youngAdult, .adult)
        }
    }

    /// The accent of an espeak-ng language voice.
    static func espeakAccent(_ language: String) -> String? {
        let accents: [(String, String)] = [
            ("en-gb-scotland", "Scottish"), ("en-gb-x-rp", "Received Pronunciation"), ("en-gb-x-gbclan", "Lancaster"),
            ("en-gb-x-gbcwmd", "West Midlands"), ("en-029", "Caribbean"), ("en-us-nyc", "New York"), ("en-us", "American"),
            ("en-gb", "British"), ("en-uk", "British"), ("en", "British"),
        ]
        return accents.first { $0.0 == language.lowercased() }?.1 ?? language
    }

    /// espeak-ng variants with a human voice, by file name. Pitch: the middle of the file's
    /// `pitch` range (espeak-ng's default 82–118 when it has none). Families: variants whose
    /// formant lines are the same (`Diogo`, `Henrique`, `Hugo`, `michel`, `miguel`).
    static let espeakVariants: [String: VoiceTraits] = {
        func f(_ pitch: Double, _ family: String, _ youngest: AgeGroup = .teen, _ oldest: AgeGroup = .adult) -> VoiceTraits {
            VoiceTraits(gender: .female, youngest: youngest, oldest: oldest, pitch: pitch, family: family)
        }
        func m(_ pitch: Double, _ family: String, _ youngest: AgeGroup = .youngAdult, _ oldest: AgeGroup = .adult) -> VoiceTraits {
            VoiceTraits(gender: .male, youngest: youngest, oldest: oldest, pitch: pitch, family: family)
        }
        return [
            // female
            "f1": f(170, "f1", .adult, .senior), "f2": f(181, "f2"), "f3": f(190, "f3"), "f4": f(171, "f4"),
            "f5": f(194, "f5"), "Alicia": f(227, "Alicia", .child, .youngAdult), "Andrea": f(232, "Andrea"),
            "Annie": f(200, "Annie"), "belinda": f(223, "linda"), "linda": f(223, "linda"),
            "steph": f(183, "steph"), "steph2": f(183, "steph"), "aunty": f(190, "aunty", .adult, .senior),
            "anika": f(250, "anika", .child, .youngAdult), "grandma": f(175, "grandma", .senior, .senior),
            // male
            "m1": m(92, "m1", .adult, .senior), "m2": m(101, "m2"), "m3": m(101, "m3"), "m4": m(90, "m4"),
            "m5": m(100, "m5"), "m6": m(99, "m6"), "m7": m(100, "m7"), "m8": m(83, "m7", .adult, .senior),
            "Andy": m(97, "andy"), "Lee": m(97, "andy"), "Denis": m(97, "victor"), "victor": m(95, "victor"),
            "Diogo": m(102, "br", .teen), "Henrique": m(100, "br", .teen), "Hugo": m(100, "br", .teen),
            "michel": m(102, "br", .teen), "miguel": m(105, "br", .teen), "antonio": m(105, "antonio"),
            "travis": m(97, "travis"), "Mario": m(100, "mario"), "Michael": m(100, "mario"), "gustave": m(101, "gustave"),
            "robert": m(90, "robert"), "quincy": m(83, "robert", .adult, .senior), "rob": m(90, "rob"),
            "paul": m(85, "paul"), "Gene": m(95, "gene"), "Gene2": m(115, "gene", .teen), "Alex": m(110, "alex", .teen),
            "Mike": m(87, "mike"), "norbert": m(100, "norbert"), "pablo": m(100, "pablo"), "pedro": m(100, "pedro"),
            "sandro": m(100, "sandro"), "grandpa": m(100, "grandpa", .senior, .senior),
        ]
    }()

    static let flite: [String: VoiceTraits] = [
        "slt": VoiceTraits(gender: .female, youngest: .teen, oldest: .adult, accent: "American", pitch: 170, family: "flite-slt"),
        "kal": VoiceTraits(gender: .male, accent: "American", pitch: 105, family: "flite-kal"),
        "kal16": VoiceTraits(gender: .male, accent: "American", pitch: 105, family: "flite-kal"),
        "rms": VoiceTraits(gender: .male, youngest: .youngAdult, oldest: .senior, accent: "American", pitch: 95, family: "flite-rms"),
        "awb": VoiceTraits(gender: .male, accent: "Scottish", pitch: 110, family: "flite-awb"),
    ]

    static let openAI: [String: VoiceTraits] = {
        func v(_ gender: Gender?, _ pitch: Double, _ accent: String = "American") -> VoiceTraits {
            VoiceTraits(gender: gender, youngest: .teen, oldest: .adult, accent: accent, pitch: pitch, family: "openai")
        }
        let table: [String: VoiceTraits] = [
            "alloy": v(nil, 150), "ash": v(.male, 110), "ballad": v(.male, 120, "British"), "coral": v(.female, 200),
            "echo": v(.male, 115), "fable": v(.male, 125, "British"), "nova": v(.female, 210), "onyx": v(.male, 90),
            "sage": v(.female, 190), "shimmer": v(.female, 205), "verse": v(.male, 120),
        ]
        return table.reduce(into: [:]) { out, entry in
            var traits = entry.value
            traits.family = "openai:" + entry.key
            out[entry.key] = traits
        }
    }()
}
