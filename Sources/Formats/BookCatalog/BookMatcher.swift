import Foundation

/// Scores candidate books against a title and author as read: a spine on a shelf photo, an
/// export row without ISBN. Pure: no I/O.
///
/// The score is the title's (``TitleComparison``: case, punctuation, diacritics, series
/// suffixes, leading articles, a dropped or added subtitle, edition words, OCR confusions, a
/// letter or two) times the author's (``AuthorComparison``: initials, "Last, First", surname
/// only, an OCR confusion), and it is built to fail towards a person, never towards the wrong book:
///
/// - **Authors that disagree** (both known, no surname in common, or one surname with given
///   names of two people) halve the title's score: at most 0.5, never a match on the title alone.
/// - **No author to compare** (none read, or a candidate without authors): the title's score times
///   0.84, so an equal title reaches 0.84, just under ``acceptThreshold``. Only a long,
///   distinctive title equal as a whole (four words or more that are neither articles nor words
///   many titles share, with 20 letters among them: "Harry Potter and the Philosopher's Stone")
///   gets 0.88 of its score instead, and so may be taken alone.
/// - ``ranked(title:author:candidates:)`` also sends to review a match that another candidate,
///   a different book (another title once edition words are dropped, or authors that
///   disagree), follows within 0.05: "It" read with "KING" beside Stephen King's and Owen King's.
public enum BookMatcher {
    /// The score at or above which a match is taken without a person: 0.85.
    ///
    /// The weights are set so that what is safe passes and what is not stops:
    ///
    /// | read against the candidate | score |
    /// |---|---|
    /// | title and author equal | 1.0 |
    /// | title equal after dropping edition words ("Dune: Deluxe Edition"), full author | 0.97 |
    /// | title equal, author as initials ("U. K. Le Guin") | 0.97 |
    /// | title equal, surname only ("DUNE" / "HERBERT") | 0.93 |
    /// | one letter lost in a 20-letter title, full author | 0.916 |
    /// | title equal but for OCR confusions ("THE H0BBIT"), surname only | 0.902 |
    /// | a subtitle of substance dropped, three significant words left, surname only | 0.855 |
    /// | threshold | 0.85 |
    /// | any title, no author read | at most 0.84 (review) |
    /// | a subtitle of substance dropped, one or two significant words left, surname only | 0.799 (review) |
    /// | three letters off in a 20-letter title, surname only | 0.751 (review) |
    /// | title equal, authors disagree | at most 0.5 (review) |
    public static let acceptThreshold = 0.85

    /// What a title without an author to compare may reach: an equal title stays just under the threshold.
    static let titleAloneWeight = 0.84
    /// What a long, distinctive title equal as a whole may reach alone.
    static let distinctiveTitleWeight = 0.88
    /// What is left of the title's score when the authors disagree.
    static let disagreeingAuthorsWeight = 0.5
    /// How close a different book's score may come to an accepted match's before both go to review.
    static let ambiguityMargin = 0.05

    /// Scores a candidate against a title and author as read (a spine photo, an export row
    /// without ISBN). Tolerant of what real readers and OCR get wrong: case, punctuation,
    /// diacritics, a dropped or added subtitle ("Dune" vs "Dune: Deluxe Edition"), series
    /// suffixes, leading articles, OCR confusions (0/O, 1/l/I, 5/S, rn/m, cl/d), an author as
    /// initials ("J. R. R. Tolkien" vs "Tolkien, J.R.R."; "U. K. Le Guin"), surname only. Authors
    /// that disagree keep the score below ``acceptThreshold`` whatever the title says; without an
    /// author the title alone stays under it unless it is long and distinctive (see ``BookMatcher``).
    public static func score(title: String, author: String?, candidate: BookCandidate) -> BookMatch {
        let read = TitleForm(title)
        let titled = TitleComparison.compare(read: read, candidate: TitleForm(candidate.fullTitle))
        var evidence = titled.evidence
        var score: Double
        switch AuthorComparison.compare(read: author, candidate: candidate) {
        case let .agree(level, note):
            score = titled.score * level
            evidence.append(note)
        case let .unknown(note):
            evidence.append(note)
            if titled.isWhole && read.isDistinctive {
                score = titled.score * distinctiveTitleWeight
                evidence.append("a long, distinctive title: taken without an author")
            } else {
                score = titled.score * titleAloneWeight
                evidence.append("the title alone stays below the threshold")
            }
        case let .disagree(note):
            score = titled.score * disagreeingAuthorsWeight
            evidence.append(note)
        }
        return BookMatch(candidate: candidate, score: rounded(score), evidence: evidence)
    }

    /// Every candidate scored, best first (equal scores in the candidates' order). A match at
    /// or above ``acceptThreshold`` that a different book follows within 0.05 is held just under
    /// it, with that book named in its evidence.
    public static func ranked(title: String, author: String?, candidates: [BookCandidate]) -> [BookMatch] {
        let scored = candidates.map { score(title: title, author: author, candidate: $0) }
        var matches = scored
        for index in scored.indices where scored[index].isAccepted {
            let match = scored[index]
            let rival = scored.indices.first { other in
                other != index && scored[other].score >= match.score - ambiguityMargin
                    && differentBooks(match.candidate, scored[other].candidate)
            }
            guard let rival else { continue }
            let other = scored[rival]
            matches[index].score = rounded(min(match.score, acceptThreshold - 0.01))
            let by = other.candidate.authors.isEmpty ? "" : " by \(other.candidate.authors.joined(separator: ", "))"
            matches[index].evidence.append(
                "ambiguous: \"\(other.candidate.fullTitle)\"\(by) scores \(String(format: "%.2f", other.score)) too")
        }
        return matches.enumerated().sorted { a, b in
            a.element.score != b.element.score ? a.element.score > b.element.score : a.offset < b.offset
        }.map(\.element)
    }

    /// Whether two candidates are different books rather than two editions of one: another
    /// title once edition words are dropped, or authors that disagree.
    static func differentBooks(_ a: BookCandidate, _ b: BookCandidate) -> Bool {
        TitleForm(a.fullTitle).plain != TitleForm(b.fullTitle).plain || AuthorComparison.differ(a.authors, b.authors)
    }

    /// Down to three decimals, so that a printed score never reads above what it is (the
    /// millionth added absorbs binary fractions: 0.84 stays 0.84, not 0.839).
    private static func rounded(_ score: Double) -> Double {
        (min(1, max(0, score)) * 1000 + 1e-6).rounded(.down) / 1000
    }
}
