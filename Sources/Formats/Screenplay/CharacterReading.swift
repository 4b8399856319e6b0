import Foundation

/// Reads what the action lines and the title page say about characters: introductions
/// (`SANDRA (60s), his wife`), pronouns after a name, and a cast list. Pure.
enum CharacterReading {
    /// What one introduction or cast-list line says.
    struct Description: Equatable {
        var text: String
        var gender: Gender?
        var genderWord: String?
        var age: AgeGroup?
        var ageText: String?
    }

    // MARK: introductions

    /// The first action line that writes `cue` in capitals, read from the name to the end of its
    /// sentence. A later line giving the name in capitals with an older age (`WILL, now 28`) gives
    /// the age: a story told over years is mostly spoken by the grown-up.
    static func introduction(of cue: String, in elements: [Element]) -> Description? {
        guard var first = firstIntroduction(of: cue, in: elements) else { return nil }
        for element in elements where element.type == .action || element.type == .centered {
            let text = element.plainText
            guard let range = capitalizedMention(of: cue, in: text) else { continue }
            let later = describe(sentence(from: text[range.upperBound...].drop { $0 == " " || $0.isUppercase }))
            if let age = later.age, let current = first.age, age > current {
                first.age = age
                first.ageText = (first.ageText.map { $0 + ", later " } ?? "") + (later.ageText ?? age.rawValue)
            }
        }
        return first
    }

    static func firstIntroduction(of cue: String, in elements: [Element]) -> Description? {
        for element in elements where element.type == .action || element.type == .centered {
            let text = element.plainText
            guard let range = capitalizedMention(of: cue, in: text) else { continue }
            var rest = text[range.upperBound...]
            // The rest of a name in capitals (`EDWARD BLOOM`): skip it.
            while let word = rest.split(separator: " ", maxSplits: 1).first, word.count > 1,
                  word.allSatisfy({ $0.isUppercase || $0 == "." || $0 == "'" || $0 == "-" }),
                  word.contains(where: \.isLetter) {
                rest = rest.drop { $0 == " " }.dropFirst(word.count)
            }
            let window = sentence(from: rest)
            var description = describe(window)
            description.text = String(text[range.lowerBound..<range.upperBound]) + window
            if description.gender == nil, let before = precedingNoun(text[..<range.lowerBound]) {
                description.gender = before.gender
                description.genderWord = before.words
                description.text = before.words + " " + description.text
            }
            return description
        }
        return nil
    }

    /// A gendered noun right before a name in the same sentence: `his mother SANDRA`,
    /// `Joe's wife, KATE`, `a forty-year old man named BEAMEN`.
    static func precedingNoun(_ before: Substring) -> (gender: Gender, words: String)? {
        let start = before.lastIndex { ".!?\n".contains($0) }.map { before.index(after: $0) } ?? before.startIndex
        var tokens = tokenize(String(before[start...])).map(\.word)
        if let last = tokens.last, ["named", "called"].contains(last) { tokens.removeLast() }
        guard tokens.count >= 2, let noun = tokens.last, let gender = CharacterLexicon.gender(of: noun) else { return nil }
        let quoted = before[start...].trimmingCharacters(in: .whitespaces)
        return (gender, quoted.count <= 40 ? quoted : "…" + String(quoted.suffix(39)))
    }

    /// Where `cue` appears in capitals as whole words.
    static func capitalizedMention(of cue: String, in text: String) -> Range<String.Index>? {
        var start = text.startIndex
        while let range = text.range(of: cue, range: start..<text.endIndex) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            if !(before?.isLetter ?? false), !(after?.isLetter ?? false) { return range }
            start = range.upperBound
        }
        return nil
    }

    /// Text up to the end of the first sentence (a `.`, `!` or `?` outside parentheses), at most 240 characters.
    static func sentence(from text: Substring) -> String {
        var depth = 0
        var end = text.endIndex
        var index = text.startIndex
        var count = 0
        while index < text.endIndex, count < 240 {
            let c = text[index]
            if c == "(" { depth += 1 } else if c == ")" { depth = max(0, depth - 1) }
            if c == "\n" { end = index; break }
            if depth == 0, ".!?".contains(c) {
                let next = text.index(after: index)
                if next == text.endIndex || text[next] == " " || text[next] == "\n" {
                    // `Dr.` and `Mrs.` do not end a sentence.
                    let word = text[..<index].split(separator: " ").last.map { $0.lowercased() } ?? ""
                    if !["dr", "mr", "mrs", "ms", "st", "jr", "sr"].contains(word) { end = index; break }
                }
            }
            index = text.index(after: index)
            count += 1
        }
        if count >= 240 { end = index }
        return String(text[text.startIndex..<end])
    }

    /// The gender and age a description says: an age (`(60s)`, `, 40s,`, `twelve-year-old`,
    /// `in her sixties`) and a gendered noun after a determiner (`a woman`, `his wife`) within its
    /// first words.
    static func describe(_ window: String) -> Description {
        var description = Description(text: window)
        let tokens = tokenize(window)
        let determiners: Set<String> = ["a", "an", "his", "her", "their", "our", "your", "my", "the"]
        // An appositive opens the description: a determiner right after a comma or parenthesis, or
        // after `is`/`was`/`as` (`SANDRA, a young woman`; `EDWARD (40s), her husband`; `JO is a girl`).
        var opened: Int?
        for (position, token) in tokens.prefix(16).enumerated() {
            if description.age == nil, let years = years(in: tokens, at: position) {
                description.age = AgeGroup(years: years.value)
                description.ageText = years.text
            }
            let previous = position > 0 ? tokens[position - 1].word : ""
            if determiners.contains(token.word) || token.possessive,
               token.afterComma || token.inParentheses || ["is", "was", "and"].contains(previous) {
                opened = position
            }
            guard description.gender == nil, let start = opened, position > start, position - start <= 4,
                  let gender = CharacterLexicon.gender(of: token.word) else { continue }
            description.gender = gender
            description.genderWord = tokens[start...position].map(\.word).joined(separator: " ")
            if description.age == nil, let age = CharacterLexicon.aged[token.word] {
                description.age = age
                description.ageText = token.word
            }
        }
        return description
    }

    struct Token {
        var word: String
        var inParentheses: Bool
        var afterComma: Bool
        var possessive: Bool
    }

    /// Lower-cased words with whether each sits in parentheses or right after a comma.
    static func tokenize(_ text: String) -> [Token] {
        var tokens: [Token] = []
        var current = ""
        var depth = 0
        var comma = true
        func flush() {
            guard !current.isEmpty else { return }
            var word = current.lowercased()
            var possessive = false
            if word.hasSuffix("'s") || word.hasSuffix("’s") { word = String(word.dropLast(2)); possessive = true }
            word = word.trimmingCharacters(in: CharacterSet(charactersIn: "'’-"))
            if !word.isEmpty { tokens.append(Token(word: word, inParentheses: depth > 0, afterComma: comma, possessive: possessive)) }
            current = ""
            comma = false
        }
        for c in text {
            if c.isLetter || c.isNumber || c == "'" || c == "’" || c == "-" {
                current.append(c)
            } else {
                flush()
                if c == "(" { depth += 1; comma = true } else if c == ")" { depth = max(0, depth - 1) }
                if c == "," || c == ";" || c == ":" { comma = true }
            }
        }
        flush()
        return tokens
    }

    /// An age in years read at `position`: `60s`, `late 30s`, `(8)`, `12-year-old`, `age 12`,
    /// `sixteen`, `forties`.
    static func years(in tokens: [Token], at position: Int) -> (value: Int, text: String)? {
        let token = tokens[position]
        var word = token.word
        var modifier = 0
        if ["early", "mid", "late"].contains(word), position + 1 < tokens.count {
            modifier = word == "early" ? -3 : word == "late" ? 3 : 0
            return years(in: tokens, at: position + 1).map { (min(max($0.value + modifier, 1), 110), token.word + " " + $0.text) }
        }
        for prefix in ["early-", "mid-", "late-"] where word.hasPrefix(prefix) {
            modifier = prefix == "early-" ? -3 : prefix == "late-" ? 3 : 0
            word = String(word.dropFirst(prefix.count))
        }
        let next = position + 1 < tokens.count ? tokens[position + 1].word : ""
        let previous = position > 0 ? tokens[position - 1].word : ""
        if let decade = CharacterLexicon.decadeWords[word] { return (decade + modifier, token.word) }
        if word.hasSuffix("s"), let decade = Int(word.dropLast()), decade >= 10, decade <= 90, decade % 10 == 0 {
            return (decade + 5 + modifier, token.word)
        }
        // A number belongs to the name only close to it (`, 40s,`, `(8)`, `is 12`, `a twelve-year-old`),
        // not in `sits with his 7 year-old son`.
        let near = token.inParentheses || ["age", "aged", "is", "now"].contains(previous)
        for suffix in ["-year-old", "-years-old"] where word.hasSuffix(suffix) {
            let number = String(word.dropLast(suffix.count))
            if let n = Int(number) ?? spelled(number), near || (position <= 2 && ["", "a", "an"].contains(previous)) {
                return (n, token.word)
            }
        }
        if let n = Int(word), n > 0, n <= 110,
           near || (position <= 1 && (token.afterComma || ["years", "year-old"].contains(next))) {
            return (n, token.word)
        }
        if let n = spelled(word), ["age", "aged", "is", "she's", "he's", "just"].contains(previous) || next == "years" {
            return (n, token.word)
        }
        return nil
    }

    /// `sixteen` → 16, `thirty-five` → 35.
    static func spelled(_ word: String) -> Int? {
        if let n = CharacterLexicon.numberWords[word] { return n }
        let parts = word.split(separator: "-")
        if parts.count == 2, let tens = CharacterLexicon.numberWords[String(parts[0])], tens >= 20,
           let ones = CharacterLexicon.numberWords[String(parts[1])], ones < 10 {
            return tens + ones
        }
        return nil
    }

    // MARK: pronouns

    /// He/him/his and she/her counted per identity: in an action sentence naming exactly one
    /// identity (after the name), and in up to two following sentences of the paragraph that name none.
    static func pronouns(identities: [String: [String]], in elements: [Element]) -> [String: (male: Double, female: Double)] {
        // Name word → identity; a word two identities share (`BLOOM`) identifies neither.
        var owners: [String: Set<String>] = [:]
        for (identity, words) in identities { for word in words { owners[word, default: []].insert(identity) } }
        let matcher = owners.compactMapValues { $0.count == 1 ? $0.first : nil }
        var counts: [String: (male: Double, female: Double)] = [:]
        for element in elements where element.type == .action {
            var subject: String?
            var carried = 0
            for sentence in sentences(element.plainText) {
                let words = sentence.split(whereSeparator: { !($0.isLetter || $0 == "'" || $0 == "’" || $0 == "." ) })
                    .map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ".'’")) }
                var mentioned: [(identity: String, index: Int)] = []
                for (index, raw) in words.enumerated() {
                    var word = raw
                    if word.hasSuffix("'s") || word.hasSuffix("’s") { word = String(word.dropLast(2)) }
                    guard let first = word.first, first.isUppercase, let identity = matcher[word.uppercased()] else { continue }
                    if !mentioned.contains(where: { $0.identity == identity }) { mentioned.append((identity, index)) }
                }
                let from: Int
                if mentioned.count == 1 {
                    subject = mentioned[0].identity
                    carried = 0
                    from = mentioned[0].index + 1
                } else if mentioned.isEmpty, subject != nil, carried < 2 {
                    carried += 1
                    from = 0
                } else {
                    subject = nil
                    continue
                }
                guard let subject else { continue }
                for word in words.dropFirst(from) {
                    // `she’s`, `he'd`: the pronoun before the apostrophe.
                    let w = String(word.lowercased().prefix { $0 != "'" && $0 != "’" })
                    if let weight = CharacterLexicon.malePronouns[w] { counts[subject, default: (0, 0)].male += weight }
                    if let weight = CharacterLexicon.femalePronouns[w] { counts[subject, default: (0, 0)].female += weight }
                }
            }
        }
        return counts
    }

    /// The sentences of a paragraph (split after `.`, `!`, `?` and at line breaks).
    static func sentences(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        var previous: Character = " "
        for c in text {
            if c == "\n" {
                out.append(current)
                current = ""
            } else if c == " ", ".!?".contains(previous) {
                let last = current.split(separator: " ").last.map { $0.lowercased() } ?? ""
                if ["dr.", "mr.", "mrs.", "ms.", "st."].contains(last) { current.append(c) } else { out.append(current); current = "" }
            } else {
                current.append(c)
            }
            previous = c
        }
        out.append(current)
        return out.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    // MARK: address

    /// "Sir" and "ma'am" in a line, credited to the previous speaker in the same scene: how many
    /// times each identity is addressed as a man or a woman.
    static func addresses(identityOf: [String: String], in elements: [Element]) -> [String: (male: Int, female: Int)] {
        var counts: [String: (male: Int, female: Int)] = [:]
        var previous: String?
        var speaker: String?
        for element in elements {
            switch element.type {
            case .sceneHeading:
                previous = nil
                speaker = nil
            case .character:
                let name = CharacterCue.normalize(element.name ?? CharacterCue(parsing: Substring(element.plainText))?.name ?? "")
                let identity = identityOf[name]
                if identity != speaker { previous = speaker }
                speaker = identity
            case .dialogue:
                guard let listener = previous, listener != speaker else { continue }
                for word in element.plainText.lowercased().split(whereSeparator: { !($0.isLetter || $0 == "'" || $0 == "’") }) {
                    switch CharacterLexicon.addresses[String(word)] {
                    case .male: counts[listener, default: (0, 0)].male += 1
                    case .female: counts[listener, default: (0, 0)].female += 1
                    case nil: break
                    }
                }
            default:
                break
            }
        }
        return counts
    }

    // MARK: title page

    /// A cast list on the title page (`Cast:` or `Characters:`), one character a line:
    /// `EDWARD BLOOM – 60s, a travelling salesman`. Keyed by the name in capitals.
    static func castList(_ titlePage: [TitlePageEntry]) -> [(name: String, description: Description)] {
        let keys: Set<String> = ["cast", "characters", "cast list", "character list", "dramatis personae"]
        var out: [(String, Description)] = []
        for entry in titlePage where keys.contains(entry.key.lowercased().trimmingCharacters(in: .whitespaces)) {
            for line in entry.values {
                let words = line.split(separator: " ")
                let nameWords = words.prefix { $0.contains(where: \.isLetter) && $0.allSatisfy { $0.isUppercase || !$0.isLetter } }
                let name = CharacterCue.normalize(nameWords.joined(separator: " ")
                    .trimmingCharacters(in: CharacterSet(charactersIn: ",:-–— ")))
                guard !name.isEmpty else { continue }
                let rest = words.dropFirst(nameWords.count).joined(separator: " ")
                var description = describe(", " + rest.trimmingCharacters(in: CharacterSet(charactersIn: ",:-–— ")))
                description.text = line
                out.append((name, description))
            }
        }
        return out
    }
}
