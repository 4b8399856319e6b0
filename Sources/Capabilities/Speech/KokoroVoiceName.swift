import Screenplay

/// What a Kokoro voice's name says about it: `af_bella` is an American English woman, `bm_george`
/// a British English man. Kokoro-82M's voices (and the servers that serve them, such as
/// Kokoro-FastAPI) are named `<language><gender>_<name>`:
///
/// | first letter | language | | second letter | gender |
/// |---|---|---|---|---|
/// | `a` | American English | | `f` | female |
/// | `b` | British English | | `m` | male |
/// | `e` | Spanish | | | |
/// | `f` | French | | | |
/// | `h` | Hindi | | | |
/// | `i` | Italian | | | |
/// | `j` | Japanese | | | |
/// | `p` | Brazilian Portuguese | | | |
/// | `z` | Mandarin Chinese | | | |
///
/// Anything else (`alloy`, a mix such as `af_bella+af_sky`, `xx_name`) is not a Kokoro name.
public struct KokoroVoiceName: Sendable, Hashable {
    /// The language the voice speaks (`en-us`, `en-gb`, `es`, `fr-fr`, `hi`, `it`, `ja`, `pt-br`, `zh-cn`).
    public var language: String
    /// A short accent name, as casting uses it (`American`, `British`, `Spanish`, …).
    public var accent: String
    public var gender: Gender
    /// The part after the underscore, capitalized (`Bella`).
    public var displayName: String

    /// The languages by first letter.
    static let languages: [Character: (language: String, accent: String)] = [
        "a": ("en-us", "American"), "b": ("en-gb", "British"), "e": ("es", "Spanish"), "f": ("fr-fr", "French"),
        "h": ("hi", "Hindi"), "i": ("it", "Italian"), "j": ("ja", "Japanese"), "p": ("pt-br", "Brazilian"),
        "z": ("zh-cn", "Mandarin"),
    ]

    /// Parses `id`; nil when it does not follow the convention: a known language letter, `f` or
    /// `m`, an underscore, then 1 to 64 ASCII letters or digits.
    public init?(_ id: String) {
        let characters = Array(id)
        guard characters.count >= 4, characters.count <= 67, characters[2] == "_",
              let language = Self.languages[characters[0]] else { return nil }
        let gender: Gender
        switch characters[1] {
        case "f": gender = .female
        case "m": gender = .male
        default: return nil
        }
        let rest = characters[3...]
        guard rest.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        self.language = language.language
        self.accent = language.accent
        self.gender = gender
        self.displayName = String(rest.prefix(1)).uppercased() + String(rest.dropFirst())
    }

    /// The ``Voice`` a server offering voice `id` lists: a Kokoro name gives the gender, language,
    /// accent and `natural` quality; any other name only its id.
    public static func voice(id: String, name: String?, provider: String) -> Voice {
        guard let kokoro = KokoroVoiceName(id) else {
            return Voice(id: id, name: name ?? id, languages: [], provider: provider)
        }
        return Voice(id: id, name: name.flatMap { $0 == id ? nil : $0 } ?? kokoro.displayName, languages: [kokoro.language],
                     gender: kokoro.gender.rawValue, provider: provider, accent: kokoro.accent, quality: .natural)
    }
}
