import Foundation

/// The one table from parentheticals to deliveries.
///
/// A parenthetical is split into parts at commas, semicolons, slashes and the words "then" and
/// "and" ("(a beat, then quietly)" is a pause and a style). Each part is normalized (lower case,
/// punctuation dropped, filler words such as "still", "very", "a", "more" removed) and looked up;
/// parts the table does not know ("to Dev", "into phone") change nothing. Pauses of several
/// parts add up; the last style wins.
public enum DeliveryTable {
    /// Normalized phrase → style.
    public static let styles: [String: DeliveryStyle] = {
        var table: [String: DeliveryStyle] = [:]
        func add(_ style: DeliveryStyle, _ phrases: [String]) { for p in phrases { table[p] = style } }
        add(.whispering, ["whispering", "whispers", "whisper", "whispered", "in whisper", "whisper shouting",
                          "stage whisper", "breathless", "breathlessly"])
        add(.quiet, ["quietly", "quiet", "quieter", "softly", "soft", "sotto", "sotto voce", "under breath",
                     "under her breath", "under his breath", "under their breath", "murmuring", "murmurs", "murmur",
                     "mumbling", "mumbles", "hushed", "low", "gently", "to herself", "to himself", "to themself", "to self"])
        add(.shouting, ["shouting", "shouts", "shout", "yelling", "yells", "yell", "screaming", "screams", "scream",
                        "bellowing", "bellows", "loud", "loudly", "louder", "calling out", "calls out", "calling", "calls"])
        add(.angry, ["angrily", "angry", "furious", "furiously", "seething", "snapping", "snaps", "irritated", "annoyed",
                     "hissing", "hisses"])
        add(.laughing, ["laughing", "laughs", "laugh", "chuckling", "chuckles", "giggling", "giggles", "amused", "grinning"])
        add(.sad, ["sadly", "sad", "crying", "cries", "sobbing", "sobs", "tearful", "tearfully", "choked", "choking up",
                   "quietly devastated", "defeated", "resigned"])
        add(.excited, ["excited", "excitedly", "thrilled", "eager", "eagerly", "elated", "enthusiastic", "enthusiastically"])
        return table
    }()

    /// Normalized phrase → seconds of silence before the line.
    public static let pauses: [String: Double] = [
        "beat": 0.8, "beats": 1.6, "two beats": 1.6, "short beat": 0.5, "long beat": 1.5,
        "pause": 1.2, "pauses": 1.2, "short pause": 0.6, "brief pause": 0.6, "long pause": 2.5, "moment": 1.0,
        "silence": 2.0, "long silence": 3.0, "hesitates": 0.8, "hesitating": 0.8, "hesitant": 0.8,
    ]

    /// Words that do not change what a part means.
    static let fillers: Set<String> = [
        "a", "an", "the", "still", "very", "really", "so", "more", "even", "quite", "almost", "barely", "slightly",
        "bit", "little", "just", "now", "suddenly", "again", "extremely", "somewhat", "rather", "too", "all",
    ]

    /// Words that separate two parts of one parenthetical.
    static let separators: Set<String> = ["then", "and", "but", "while"]

    /// The delivery a parenthetical asks for (`text` with or without its parentheses).
    public static func delivery(for text: String) -> Delivery {
        let written = SpeakableRules.stripParentheses(text).trimmingCharacters(in: .whitespacesAndNewlines)
        var delivery = Delivery(parenthetical: written)
        for part in parts(of: written) {
            if let style = styles[part] { delivery.style = style }
            if let pause = pauses[part] { delivery.pauseBefore += pause }
        }
        return delivery
    }

    /// The normalized parts of a parenthetical: "(Beat. Then, very QUIETLY)" → ["beat", "quietly"].
    public static func parts(of text: String) -> [String] {
        var parts: [[String]] = [[]]
        var word = ""
        func endWord() {
            guard !word.isEmpty else { return }
            if separators.contains(word) { parts.append([]) } else if !fillers.contains(word) { parts[parts.count - 1].append(word) }
            word = ""
        }
        for character in text.lowercased() {
            if character.isLetter || character == "'" || character == "’" {
                word.append(character == "’" ? "'" : character)
            } else if ",;/.:!?".contains(character) || character == "—" || character == "–" {
                endWord()
                parts.append([])
            } else {
                endWord()
            }
        }
        endWord()
        return parts.map { $0.joined(separator: " ") }.filter { !$0.isEmpty }
    }
}
