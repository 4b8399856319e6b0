/// How a pronunciation lexicon's phonemes are written.
public enum PhonemeAlphabet: String, Codable, Sendable, Hashable, CaseIterable {
    /// espeak-ng's phoneme mnemonics (what `espeak-ng -x` prints, e.g. `Iz'0ld@`), read by
    /// espeak-ng inside `[[...]]` in the text.
    case espeak
    /// The International Phonetic Alphabet (`ɪˈzɒldə`). No built-in provider reads IPA in its
    /// text, so an IPA entry needs a respelling, which they all get.
    case ipa
}
