/// A character's gender as the script presents it.
public enum Gender: String, Codable, Sendable, Hashable, CaseIterable {
    case female, male
}

/// An age band, youngest first. Raw values are the stable JSON names.
public enum AgeGroup: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    /// Under 13.
    case child
    /// 13–19.
    case teen
    /// 20–35.
    case youngAdult = "young-adult"
    /// 36–59.
    case adult
    /// 60 and over.
    case senior

    /// Position from youngest (0) to oldest (4).
    public var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    public static func < (lhs: AgeGroup, rhs: AgeGroup) -> Bool { lhs.rank < rhs.rank }

    /// The band of an age in years.
    public init(years: Int) {
        switch years {
        case ..<13: self = .child
        case 13...19: self = .teen
        case 20...35: self = .youngAdult
        case 36...59: self = .adult
        default: self = .senior
        }
    }
}

/// One reason behind an inference: where in the script it was read and what it says.
public struct CastingEvidence: Codable, Sendable, Hashable {
    /// Where the evidence comes from.
    public enum Source: String, Codable, Sendable, Hashable {
        /// A word in the cue itself (`MRS. HOLLOWAY`, `OLD MAN`, `YOUNG EDWARD`).
        case cue
        /// The character's introduction in action (`SANDRA (60s), his wife`).
        case introduction
        /// Pronouns referring to the character in the action lines after its name.
        case pronouns
        /// A cast list on the title page.
        case titlePage = "title-page"
        /// How cues were merged into one identity (`YOUNG EDWARD` → `EDWARD`).
        case identity
        /// A cue naming several speakers (`EDWARD AND WILL`, `ALL`).
        case group
        /// The first name, when it is one usually given to one gender (weak evidence).
        case name
        /// How the speaker before them is answered: "Good morning, sir."
        case address
    }

    public var source: Source
    /// What was read, quoted briefly (`"SANDRA (60s)"`, `"14 he/him/his, 1 she/her"`).
    public var detail: String
    /// The gender this evidence points to, if any.
    public var gender: Gender?
    /// The age band this evidence points to, if any.
    public var age: AgeGroup?
    /// How much it counts when evidences are weighed (pronouns: one per pronoun).
    public var weight: Double

    public init(source: Source, detail: String, gender: Gender? = nil, age: AgeGroup? = nil, weight: Double = 0) {
        self.source = source
        self.detail = detail
        self.gender = gender
        self.age = age
        self.weight = weight
    }
}
