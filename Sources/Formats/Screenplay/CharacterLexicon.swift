/// The words casting reads: gendered nouns and titles, age words, pronouns and cue modifiers.
/// All lookups take lower-cased words.
enum CharacterLexicon {
    /// Nouns and titles that say a person's gender.
    static let gendered: [String: Gender] = {
        var table: [String: Gender] = [:]
        for word in ["woman", "women", "girl", "lady", "mother", "mom", "mum", "mama", "mommy", "wife", "daughter",
                     "sister", "grandmother", "grandma", "granny", "aunt", "auntie", "aunty", "niece", "widow",
                     "actress", "waitress", "queen", "princess", "bride", "girlfriend", "mrs", "ms", "miss", "madam",
                     "madame", "nun", "witch", "hostess", "stewardess", "matron", "housewife", "duchess", "heiress",
                     "ballerina", "mistress", "gal", "lass", "schoolgirl", "countess", "empress", "sorceress",
                     "goddess", "landlady", "cowgirl", "stepmother", "fiancee", "fiancée", "grandmom", "señora",
                     "senora", "señorita", "mademoiselle", "sis", "maid", "housekeeper", "chairwoman", "girls"] {
            table[word] = .female
        }
        for word in ["man", "men", "boy", "guy", "gentleman", "father", "dad", "daddy", "papa", "husband", "son",
                     "brother", "grandfather", "grandpa", "gramps", "uncle", "nephew", "widower", "waiter", "king",
                     "prince", "groom", "bridegroom", "boyfriend", "mr", "sir", "lord", "priest", "monk", "monsieur",
                     "fellow", "lad", "dude", "cowboy", "stepfather", "fiance", "fiancé", "señor", "senor",
                     "duke", "count", "emperor", "sorcerer", "god", "landlord", "bro", "butler", "boys", "mister",
                     "businessman", "policeman", "fireman", "salesman", "doorman", "mailman", "fisherman",
                     "chairman", "cameraman", "repairman", "watchman", "foreman", "handyman", "deliveryman",
                     "ringmaster", "strongman", "wizard", "monsignor", "abbot", "baron", "father-in-law",
                     "brother-in-law", "son-in-law"] {
            table[word] = .male
        }
        return table
    }()

    /// The gender a word says, if it says one (`salesman` → male through its `-man` ending).
    static func gender(of word: String) -> Gender? {
        if let known = gendered[word] { return known }
        if word.count > 5, word.hasSuffix("woman") { return .female }
        if word.count > 4, word.hasSuffix("man"), !["human", "shaman", "german", "roman", "ottoman"].contains(word) {
            return .male
        }
        return nil
    }

    /// Nouns that say an age band.
    static let aged: [String: AgeGroup] = [
        "child": .child, "kid": .child, "kids": .child, "baby": .child, "toddler": .child, "boy": .child,
        "girl": .child, "schoolgirl": .child, "schoolboy": .child, "infant": .child, "little": .child,
        "teen": .teen, "teenager": .teen, "teenage": .teen, "teenaged": .teen, "adolescent": .teen,
        "elderly": .senior, "grandma": .senior, "grandpa": .senior, "grandmother": .senior,
        "grandfather": .senior, "granny": .senior, "gramps": .senior, "ancient": .senior, "aged": .senior,
        "old": .senior, "senior": .senior, "widow": .senior, "widower": .senior,
    ]

    /// Cue prefixes that name one person at another age (`YOUNG EDWARD`), with how many age bands
    /// they move the voice (negative: younger).
    static let agePrefixes: [String: Int] = [
        "YOUNG": -1, "YOUNGER": -1, "LITTLE": -2, "BABY": -2, "KID": -2, "CHILD": -2, "TEEN": -1, "TEENAGE": -1,
        "TEENAGED": -1, "ADULT": 0, "GROWN": 0, "OLD": 1, "OLDER": 1, "ELDERLY": 1, "SENIOR": 1, "AGED": 1,
    ]

    /// Honorifics in cues, with the gender they say (nil: none).
    static let honorifics: [String: Gender?] = [
        "MR": .male, "MR.": .male, "MISTER": .male, "SIR": .male, "LORD": .male, "MRS": .female, "MRS.": .female,
        "MS": .female, "MS.": .female, "MISS": .female, "LADY": .female, "MADAM": .female, "DR": nil, "DR.": nil,
        "PROF.": nil, "PROFESSOR": nil, "CAPT.": nil, "CAPTAIN": nil, "SGT.": nil, "OFFICER": nil, "DETECTIVE": nil,
    ]

    /// Cues that mean several unnamed speakers at once.
    static let chorusCues: Set<String> = [
        "ALL", "BOTH", "EVERYONE", "EVERYBODY", "TOGETHER", "CROWD", "VOICES", "GROUP", "CHORUS", "THEY",
        "ALL THREE", "ALL FOUR", "THE CROWD", "THE GROUP", "EVERYONE ELSE", "OTHERS", "SEVERAL", "KIDS", "CHILDREN",
    ]

    /// Words a cue made only of (plus numbers) does not name a person: `MAN #2`, `OLD WOMAN`.
    static let generic: Set<String> = [
        "MAN", "WOMAN", "BOY", "GIRL", "GUY", "LADY", "KID", "CHILD", "BABY", "OLD", "YOUNG", "LITTLE", "VOICE",
        "PERSON", "STRANGER", "FIGURE", "TEEN", "TEENAGER", "GENTLEMAN", "MEN", "WOMEN", "BOYS", "GIRLS", "THE",
        "FAT", "TALL", "SHORT", "SKINNY", "BALD", "WISE", "NEW", "FIRST", "SECOND", "THIRD", "ANOTHER", "OTHER",
    ]

    /// Pronouns with how much each says about the sentence's subject: an object pronoun (`him`)
    /// usually means someone else, `her` is object or possessive, so half.
    static let malePronouns: [String: Double] = ["he": 1, "his": 1, "himself": 1]
    static let femalePronouns: [String: Double] = ["she": 1, "her": 0.5, "hers": 1, "herself": 1]

    /// Words that address someone by gender ("Yes, sir."): said to the previous speaker.
    static let addresses: [String: Gender] = [
        "sir": .male, "mister": .male, "ma'am": .female, "ma’am": .female, "maam": .female, "madam": .female,
    ]

    /// Numbers written as words, for "She's sixteen" or "a twelve-year-old".
    static let numberWords: [String: Int] = [
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
        "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
        "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
        "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    ]

    /// Decades written as words: "in his forties".
    static let decadeWords: [String: Int] = [
        "teens": 15, "twenties": 25, "thirties": 35, "forties": 45, "fifties": 55, "sixties": 65,
        "seventies": 75, "eighties": 85, "nineties": 95,
    ]
}
