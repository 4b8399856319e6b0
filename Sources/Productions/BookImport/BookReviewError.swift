import Foundation

/// Why the review list refused a request. Each reads as one line (the CLI prints it as its error).
public enum BookReviewError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No item has this id.
    case unknownReview(UUID)
    /// No item's id starts with these digits.
    case noMatchingReview(String)
    /// More than one item's id starts with these digits.
    case ambiguousID(String)
    /// Neither a UUID nor at least ``BookReviewClient/minimumPrefix`` hex digits.
    case invalidID(String)
    /// The item was accepted or rejected already.
    case decided(UUID, state: String)
    /// No candidate has this index.
    case candidateOutOfRange(UUID, index: Int, count: Int)
    /// Neither a candidate nor the reading was chosen.
    case noChoice
    /// Both a candidate and the reading were chosen.
    case twoChoices
    /// A source other than ``BookReview/sources``.
    case invalidSource(String)
    /// A state other than ``BookReview/states``.
    case invalidState(String)
    /// An item needs the title as read.
    case noTitle
    /// A list's limit below 1.
    case invalidLimit(Int)
    /// `keep` of an item that is no catalog book yet (a spine read on a shelf).
    case nothingToKeep(UUID)

    /// The refusal as one line.
    public var description: String {
        switch self {
        case let .unknownReview(id): "no review \(id.uuidString.lowercased())"
        case let .noMatchingReview(prefix): "no review id starts with \(prefix)"
        case let .ambiguousID(prefix): "\(prefix) starts more than one review id: give more of its digits"
        case let .invalidID(text):
            "'\(text)' is not a review id: give the whole id or at least its first \(BookReviewClient.minimumPrefix) hex digits"
        case let .decided(id, state): "review \(Self.short(id)) is already \(state)"
        case let .candidateOutOfRange(id, index, count):
            count == 0
                ? "review \(Self.short(id)) has no candidates: accept it as read or reject it"
                : "review \(Self.short(id)) has \(count) candidate\(count == 1 ? "" : "s") (0 to \(count - 1)), not \(index)"
        case .noChoice: "choose a candidate or the title and author as read"
        case .twoChoices: "choose a candidate or the title and author as read, not both"
        case let .invalidSource(source): "unknown review source '\(source)' (\(BookReview.sources.joined(separator: ", ")))"
        case let .invalidState(state): "unknown review state '\(state)' (\(BookReview.states.joined(separator: ", ")))"
        case .noTitle: "a review item needs the title as read"
        case let .invalidLimit(limit): "the limit must be at least 1, not \(limit)"
        case let .nothingToKeep(id): "review \(Self.short(id)) is no catalog book yet: accept it (a candidate or --as-read) or reject it"
        }
    }

    /// An id as the list prints it: its first eight digits.
    static func short(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }
}
