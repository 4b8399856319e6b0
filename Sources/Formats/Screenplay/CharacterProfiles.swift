import Foundation

/// Who the characters of a script are, read from the script alone: which cues are one person
/// (``CharacterIdentity``), and each person's gender and age with the evidence and a confidence.
/// Unknown stays unknown: a gender is stated only when the evidence clearly points one way.
///
/// Evidence and weights (per person, over all its cues):
/// - a word in a cue (`MRS.`, `GIRL`, `GRANDMA`, `-MAN`): 5;
/// - a title-page cast list line: 6;
/// - the introduction in action (`SANDRA (60s), his wife`): 4;
/// - each he/him/his or she/her in action after the name: 1;
/// - each "sir" or "ma'am" in the next speaker's reply: 2;
/// - a first name usually given to one gender: 2.
///
/// A gender is stated when its weight is at least 2 and at least twice the other's; confidence is
/// its share of the weight times min(1, weight ÷ 6). Pure and deterministic: no dictionary or set
/// order reaches the output.
public struct CharacterProfiles: Codable, Sendable, Hashable {
    /// One person: every cue that names them, and what the script says about them.
    public struct Person: Codable, Sendable, Hashable {
        /// The identity's name (the cue without age prefix, honorific or surname).
        public var identity: String
        /// Its cues, in order of first appearance.
        public var cues: [String]
        /// Dialogue lines over all its cues.
        public var lines: Int
        /// The 1-based scenes any of its cues speaks in, ascending.
        public var scenes: [Int]
        public var gender: Gender?
        /// 0…1; 0 when the gender is unknown.
        public var genderConfidence: Double
        public var age: AgeGroup?
        /// 0…1; 0 when the age is unknown.
        public var ageConfidence: Double
        public var evidence: [CastingEvidence]
    }

    /// One cue as spoken: the person (or people) behind it and its age relative to them.
    public struct Cue: Codable, Sendable, Hashable {
        public var name: String
        public var identity: String
        public var kind: CharacterIdentity.Kind
        /// For a group cue: the members' identities.
        public var members: [String]
        public var lines: Int
        /// The cue's own age band, when it has one (`YOUNG EDWARD (10)`).
        public var age: AgeGroup?
        /// Age bands from its person's main age (negative: younger); 0 for the main cue.
        public var ageShift: Int
        public var evidence: [CastingEvidence]
    }

    /// People with their most-speaking first (then first appearance).
    public var people: [Person]
    /// Cues in order of first appearance.
    public var cues: [Cue]

    /// The person named `identity`.
    public func person(_ identity: String) -> Person? { people.first { $0.identity == identity } }
    /// The cue named `name` (normalized).
    public func cue(_ name: String) -> Cue? { cues.first { $0.name == name } }

    /// Reads `document` (with its ``ScriptAnalysis``).
    public init(document: ScreenplayDocument, analysis: ScriptAnalysis? = nil) {
        let analysis = analysis ?? ScriptAnalysis(document: document)
        let characters = analysis.characters
        let resolved = CharacterIdentity.resolve(characters.map(\.name))
        let castList = CharacterReading.castList(document.titlePage)

        // Per cue: the words of the cue itself and its introduction.
        var cues: [Cue] = []
        var cueEvidence: [[CastingEvidence]] = []
        for (character, identity) in zip(characters, resolved) {
            var evidence = identity.evidence
            var ownAge: AgeGroup?
            if identity.kind == .person {
                evidence += Self.cueWords(character.name)
                if let line = castList.first(where: { $0.name == character.name }) {
                    evidence += Self.evidence(line.description, source: .titlePage, genderWeight: 6, ageWeight: 5)
                }
                if let intro = CharacterReading.introduction(of: character.name, in: document.elements) {
                    evidence += Self.evidence(intro, source: .introduction, genderWeight: 4, ageWeight: 4)
                }
                ownAge = evidence.filter { $0.source != .cue || $0.age != nil }.max { $0.weightForAge < $1.weightForAge }?.age
            }
            cues.append(Cue(name: character.name, identity: identity.identity, kind: identity.kind, members: identity.members,
                            lines: character.dialogueLines, age: ownAge, ageShift: 0, evidence: evidence))
            cueEvidence.append(evidence)
        }

        // People, in order of first appearance, then sorted by lines.
        var order: [String] = []
        var byIdentity: [String: [Int]] = [:]
        for (index, cue) in cues.enumerated() where cue.kind == .person {
            if byIdentity[cue.identity] == nil { order.append(cue.identity) }
            byIdentity[cue.identity, default: []].append(index)
        }
        // Name words for pronoun attribution: the identity's words that name a person.
        var nameWords: [String: [String]] = [:]
        for identity in order {
            let words = identity.split(separator: " ").map(String.init)
                .filter { !CharacterLexicon.generic.contains($0) && CharacterLexicon.honorifics[$0] == nil && $0.count >= 2 }
                .filter { !CharacterIdentity.isNumbering($0) }
            // A name of one or two words is looked for by each word (`NORTHER WINSLOW`: `Norther`,
            // `Winslow`; `DR. BENNETT`: `Bennett`); a word two people share names neither.
            if !words.isEmpty, words.count <= 2 { nameWords[identity] = words }
        }
        let pronouns = CharacterReading.pronouns(identities: nameWords, in: document.elements)
        var identityOf: [String: String] = [:]
        for cue in cues where cue.kind == .person { identityOf[cue.name] = cue.identity }
        let addresses = CharacterReading.addresses(identityOf: identityOf, in: document.elements)

        var people: [Person] = []
        for identity in order {
            let indexes = byIdentity[identity] ?? []
            var evidence = indexes.flatMap { cueEvidence[$0] }
            if let counts = pronouns[identity], counts.male + counts.female > 0 {
                let gender: Gender? = counts.male > counts.female ? .male : counts.female > counts.male ? .female : nil
                evidence.append(CastingEvidence(source: .pronouns,
                    detail: "he/his \(Self.number(counts.male)), she/her \(Self.number(counts.female)) after the name in action",
                    gender: gender, weight: abs(counts.male - counts.female)))
            }
            if let counts = addresses[identity], counts.male != counts.female {
                let gender: Gender = counts.male > counts.female ? .male : .female
                evidence.append(CastingEvidence(source: .address,
                    detail: "answered as \(gender == .male ? "sir" : "ma'am") \(max(counts.male, counts.female))×",
                    gender: gender, weight: 2 * Double(abs(counts.male - counts.female))))
            }
            if let name = CharacterLexicon.firstName(of: identity) {
                evidence.append(CastingEvidence(source: .name, detail: "\(name.word) is usually a \(name.gender == .male ? "man" : "woman")'s name",
                                                gender: name.gender, weight: 2))
            }
            let (gender, genderConfidence) = Self.weighGender(evidence)
            // The person's age: from the cues without an age prefix, the strongest evidence first.
            let main = indexes.filter { resolved[$0].ageShift == nil }
            let ageEvidence = (main.isEmpty ? indexes : main).flatMap { cueEvidence[$0] }.filter { $0.age != nil }
            let strongest = ageEvidence.max { $0.weightForAge < $1.weightForAge }
            let scenes = Set(indexes.flatMap { characters[$0].scenes }).sorted()
            people.append(Person(identity: identity, cues: indexes.map { cues[$0].name },
                                 lines: indexes.reduce(0) { $0 + cues[$1].lines }, scenes: scenes,
                                 gender: gender, genderConfidence: genderConfidence, age: strongest?.age,
                                 ageConfidence: strongest.map { $0.source == .cue ? 0.6 : 0.8 } ?? 0, evidence: evidence))
        }

        // Each cue's age relative to its person: its own age when both are known, else its prefix.
        let personAge = Dictionary(uniqueKeysWithValues: people.map { ($0.identity, $0.age) })
        let prefixShift = Dictionary(uniqueKeysWithValues: resolved.map { ($0.cue, $0.ageShift) })
        for index in cues.indices where cues[index].kind == .person {
            if let own = cues[index].age, let base = personAge[cues[index].identity] ?? nil, prefixShift[cues[index].name] != nil {
                cues[index].ageShift = own.rank - base.rank
            } else {
                cues[index].ageShift = prefixShift[cues[index].name].flatMap { $0 } ?? 0
            }
        }
        let firstSeen = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        self.people = people.sorted { ($0.lines, firstSeen[$1.identity] ?? 0) > ($1.lines, firstSeen[$0.identity] ?? 0) }
        self.cues = cues
    }

    /// Gender and age words in the cue itself (`MRS. HOLLOWAY`, `OLD MAN`, `POLICEWOMAN`).
    static func cueWords(_ cue: String) -> [CastingEvidence] {
        var out: [CastingEvidence] = []
        for raw in cue.split(separator: " ") {
            let word = raw.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".,#'"))
            let gender = CharacterLexicon.gender(of: word)
            let age = CharacterLexicon.aged[word]
            if gender != nil || age != nil {
                out.append(CastingEvidence(source: .cue, detail: "\(raw) in the cue", gender: gender, age: age, weight: 5))
            }
        }
        return out
    }

    static func evidence(_ description: CharacterReading.Description, source: CastingEvidence.Source,
                         genderWeight: Double, ageWeight: Double) -> [CastingEvidence] {
        var out: [CastingEvidence] = []
        let quote = Self.quote(description.text)
        if let gender = description.gender {
            out.append(CastingEvidence(source: source, detail: "\"\(quote)\": \(description.genderWord ?? gender.rawValue)",
                                       gender: gender, weight: genderWeight))
        }
        if let age = description.age {
            out.append(CastingEvidence(source: source, detail: "\"\(quote)\": \(description.ageText ?? age.rawValue)",
                                       age: age, weight: ageWeight))
        }
        return out
    }

    /// `3` or `2.5`.
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    /// At most 80 characters of `text`, on one line.
    static func quote(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        return flat.count <= 80 ? flat : String(flat.prefix(79)) + "…"
    }

    /// The gender the evidence states, and how sure it is (see the type's documentation).
    static func weighGender(_ evidence: [CastingEvidence]) -> (Gender?, Double) {
        let male = evidence.filter { $0.gender == .male }.reduce(0) { $0 + $1.weight }
        let female = evidence.filter { $0.gender == .female }.reduce(0) { $0 + $1.weight }
        let (winner, loser, gender): (Double, Double, Gender) = male >= female ? (male, female, .male) : (female, male, .female)
        guard winner >= 2, winner >= 2 * loser else { return (nil, 0) }
        let confidence = winner / (winner + loser) * min(1, winner / 6)
        return (gender, (confidence * 100).rounded() / 100)
    }
}

extension CastingEvidence {
    /// How much this says about age: title page, then introduction, then a cue word.
    var weightForAge: Double {
        guard age != nil else { return -1 }
        switch source {
        case .titlePage: return 5
        case .introduction: return 4
        case .cue: return 3
        default: return 0
        }
    }
}
