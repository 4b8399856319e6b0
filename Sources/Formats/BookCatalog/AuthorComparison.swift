/// Whether an author as read is one of a candidate's authors.
///
/// Each name read (``PersonName/names(in:)``) is compared with each of the candidate's
/// (``NameParts``); the best pair decides:
///
/// - the same words, in any order ("Murakami Haruki"): 1;
/// - the same surname and given names that fit, initials for names ("U. K. Le Guin" and
///   "Ursula K. Le Guin"; "J.R.R." and "John Ronald Reuel"): 0.97;
/// - the same surname, one side without given names (a spine that says "HERBERT"): 0.93;
/// - a surname equal once OCR confusions are folded counts 0.97 of that, one letter off (five
///   letters or more) 0.93;
/// - the same surname but given names that cannot be one person's ("Anne Brontë", "Charlotte
///   Brontë"; "Brian Herbert", "Frank Herbert"): the authors disagree;
/// - no surname in common: the authors disagree.
///
/// No name read, or a candidate without authors, is unknown; so is a name read that is the
/// candidate's publisher (a spine's imprint read for its author).
enum AuthorComparison {
    enum Verdict {
        case agree(Double, String)
        case unknown(String)
        case disagree(String)
    }

    private enum Pairing {
        case agree(Double, String)
        case conflict(String)
        case none
    }

    static func compare(read: String?, candidate: BookCandidate) -> Verdict {
        let readNames = PersonName.names(in: read ?? "").compactMap(NameParts.init)
        guard !readNames.isEmpty else { return .unknown("no author read") }
        let candidateNames = candidate.authors.compactMap(NameParts.init)
        guard !candidateNames.isEmpty else { return .unknown("the candidate names no author") }
        var best: (Double, String)?
        var conflict: String?
        for name in readNames {
            for other in candidateNames {
                switch pair(name, other) {
                case let .agree(level, evidence):
                    if best == nil || level > best!.0 { best = (level, evidence) }
                case let .conflict(evidence):
                    if conflict == nil { conflict = evidence }
                case .none:
                    break
                }
            }
        }
        if let best { return .agree(best.0, best.1) }
        let readText = readNames.map(\.display).joined(separator: ", ")
        if let publisher = candidate.publisher, isPublisher(readNames, publisher) {
            return .unknown("the name read (\(readText)) is the candidate's publisher, not an author")
        }
        let candidateText = candidateNames.map(\.display).joined(separator: ", ")
        if let conflict { return .disagree("authors disagree: \(conflict)") }
        return .disagree("authors disagree: read \(readText), the candidate is by \(candidateText)")
    }

    /// Whether two candidates' author lists name different people (both known, no name of one
    /// agreeing with a name of the other).
    static func differ(_ a: [String], _ b: [String]) -> Bool {
        let first = a.compactMap(NameParts.init), second = b.compactMap(NameParts.init)
        guard !first.isEmpty, !second.isEmpty else { return false }
        for name in first {
            for other in second {
                if case .agree = pair(name, other) { return false }
            }
        }
        return true
    }

    private static func pair(_ read: NameParts, _ other: NameParts) -> Pairing {
        if read.words == other.words { return .agree(1, "author \(other.display) agrees") }
        if read.words.sorted() == other.words.sorted() {
            return .agree(1, "author \(other.display) agrees (names in another order)")
        }
        var surnameLevel = 0.0
        for a in read.surnames {
            for b in other.surnames {
                let level: Double
                if a == b { level = 1 }
                else if OCRText.skeleton(a) == OCRText.skeleton(b) { level = 0.97 }
                else if min(a.count, b.count) >= 5, OCRText.distance(OCRText.skeleton(a), OCRText.skeleton(b)) <= 1 { level = 0.93 }
                else { level = 0 }
                surnameLevel = max(surnameLevel, level)
            }
        }
        guard surnameLevel > 0 else { return .none }
        let surname = surnameLevel == 1
            ? "author surname \(other.surnameDisplay) agrees"
            : "author surname \(read.surnameDisplay) read for \(other.surnameDisplay) (an OCR confusion or one letter)"
        guard let readFirst = read.given.first, let otherFirst = other.given.first else {
            return .agree(0.93 * surnameLevel, surname)
        }
        // The first given names must agree, unless one is a word of the other's name (a double
        // surname read in part: "García Márquez" and "Gabriel García Márquez").
        let fits = NameParts.givenAgree(readFirst, otherFirst)
            || other.words.contains(where: { readFirst.count > 1 && NameParts.givenAgree(readFirst, $0) })
            || read.words.contains(where: { otherFirst.count > 1 && NameParts.givenAgree(otherFirst, $0) })
        guard fits else {
            return .conflict("\(read.display) is not \(other.display) (the same surname, other given names)")
        }
        return .agree(0.97 * surnameLevel, "\(surname), given names fit (\(read.display) ~ \(other.display))")
    }

    /// Whether the names read are the publisher's name or its first words ("Penguin" for "Penguin Books").
    private static func isPublisher(_ names: [NameParts], _ publisher: String) -> Bool {
        let publisherWords = MatchKey.words(of: publisher)
        guard !publisherWords.isEmpty else { return false }
        return names.contains { name in
            let words = MatchKey.words(of: name.display)
            return !words.isEmpty && publisherWords.starts(with: words)
        }
    }
}
