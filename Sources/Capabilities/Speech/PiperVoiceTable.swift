/// What Piper's voice configs do not say: the gender of the published voices (by `dataset`, and
/// by speaker for the multi-speaker models whose speakers are named) and the accent of a language
/// code. A voice not in the table keeps no gender.
enum PiperVoiceTable {
    /// The published single-speaker voices (Piper's VOICES.md) and their model cards.
    static let genders: [String: String] = {
        let female = [
            // English
            "amy", "kathleen", "kristin", "lessac", "ljspeech", "hfc_female", "alba", "jenny_dioco",
            "southern_english_female", "cori",
            // other languages
            "eva_k", "kerstin", "ramona", "siwis", "paola", "irina", "lada", "huayan", "gosia", "nathalie",
        ]
        let male = [
            // English
            "joe", "ryan", "john", "norman", "bryce", "hfc_male", "kusal", "danny", "alan", "northern_english_male",
            "reza_ibrahim",
            // other languages
            "thorsten", "thorsten_emotional", "karlsson", "pavoque", "tom", "gilles", "riccardo", "davefx", "carlfm",
            "ald", "claude", "denis", "dmitri", "ruslan", "faber", "darkman",
        ]
        return Dictionary(uniqueKeysWithValues: female.map { ($0, "female") } + male.map { ($0, "male") })
    }()

    /// Named speakers of multi-speaker models (`dataset/speaker`). The rest of those models
    /// (arctic, l2arctic, libritts, libritts_r, vctk, aru, mls, …) stay unknown.
    static let speakerGenders: [String: String] = [
        "semaine/prudence": "female", "semaine/poppy": "female", "semaine/spike": "male", "semaine/obadiah": "male",
        "upmc/jessica": "female", "upmc/pierre": "male",
    ]

    /// `male`, `female` or nil.
    static func gender(dataset: String, speaker: String?) -> String? {
        let key = dataset.lowercased()
        if let speaker { return speakerGenders[key + "/" + speaker.lowercased()] ?? (key == "thorsten_emotional" ? "male" : nil) }
        return genders[key]
    }

    /// The accent a language code gives (`en_US` American, `en_GB` British), else nil.
    static func accent(languageCode: String) -> String? {
        switch languageCode.lowercased().replacingOccurrences(of: "-", with: "_") {
        case "en_us": "American"
        case "en_gb": "British"
        case "es_mx": "Mexican"
        case "pt_br": "Brazilian"
        default: nil
        }
    }

    /// `hfc_female` → `Hfc female`, `joe` → `Joe`.
    static func title(_ dataset: String) -> String {
        let words = dataset.replacingOccurrences(of: "_", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}
