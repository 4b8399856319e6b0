/// A candidate scored against a title and author as read (``BookMatcher``).
public struct BookMatch: Codable, Sendable, Hashable {
    /// The book scored.
    public var candidate: BookCandidate
    /// 0 (nothing in common) to 1 (title and author equal); at or above
    /// ``BookMatcher/acceptThreshold`` the match may be taken without a person.
    public var score: Double
    /// Why, for people, in the order it was weighed: the title ("title equal after dropping the
    /// subtitle \"Deluxe Edition\""), the author ("author surname Herbert agrees", "authors
    /// disagree: …"), and what capped the score.
    public var evidence: [String]

    /// A scored candidate (``BookMatcher`` makes them).
    public init(candidate: BookCandidate, score: Double, evidence: [String]) {
        (self.candidate, self.score, self.evidence) = (candidate, score, evidence)
    }

    /// True when ``score`` reaches ``BookMatcher/acceptThreshold``.
    public var isAccepted: Bool { score >= BookMatcher.acceptThreshold }
}
