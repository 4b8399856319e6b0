import BookCatalog
import Foundation
import Postgres
import RepartoRuntime

/// The review list for people: list the open items, accept one (a candidate, or the title and
/// author as read), reject one, keep one (an item about a catalog book, left as it is). For the
/// CLI (`reparto books review`) and services that embed it.
///
/// ```swift
/// let reviews = BookReviewClient(postgres: pool)
/// for item in try await reviews.list() { print(item.reference, item.title, item.best?.score ?? 0) }
/// let accepted = try await reviews.accept(id, candidate: 0, asRead: false)   // accepted.bookID
/// ```
public struct BookReviewClient: Sendable {
    /// The pool the list is read and decided on.
    public let postgres: PostgresClient
    /// Enqueue enrichment (``BookEnrichJob``: the services' details and a cover) for a book an
    /// accept adds, in the accept's transaction.
    public var enrichAdded: Bool
    /// With ``enrichAdded``: a limit created when none of its name exists
    /// (``BookServiceSettings/politeLimit`` for the public Open Library), as an import does.
    public var politeness: LimitSpec?

    /// A client of the review list in `postgres`; by default an accept enqueues nothing.
    public init(postgres: PostgresClient, enrichAdded: Bool = false, politeness: LimitSpec? = nil) {
        (self.postgres, self.enrichAdded, self.politeness) = (postgres, enrichAdded, politeness)
    }

    /// The fewest hex digits of an id that name an item (``resolve(_:)``).
    public static let minimumPrefix = 8

    /// The items in `state` (every item when nil), oldest first, at most `limit`.
    /// - Throws: ``BookReviewError/invalidState(_:)``, ``BookReviewError/invalidLimit(_:)``.
    public func list(state: String? = "open", limit: Int = 100) async throws -> [BookReview] {
        if let state, !BookReview.states.contains(state) { throw BookReviewError.invalidState(state) }
        guard limit >= 1 else { throw BookReviewError.invalidLimit(limit) }
        return try await postgres.withConnection { try BookReviewRows.list(state: state, limit: limit, on: $0) }
    }

    /// One item, or nil.
    public func review(_ id: UUID) async throws -> BookReview? {
        try await postgres.withConnection { try BookReviewRows.review(id, on: $0) }
    }

    /// The id a person typed: a whole UUID, or a prefix of at least ``minimumPrefix`` hex digits
    /// (hyphens optional) that starts exactly one item's id.
    /// - Throws: ``BookReviewError/invalidID(_:)``, ``BookReviewError/noMatchingReview(_:)``,
    ///   ``BookReviewError/ambiguousID(_:)``.
    public func resolve(_ text: String) async throws -> UUID {
        let typed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let id = UUID(uuidString: typed) { return id }
        let digits = typed.filter { $0 != "-" }
        guard !typed.isEmpty, typed.allSatisfy({ $0 == "-" || ($0.isASCII && $0.isHexDigit) }), digits.count >= Self.minimumPrefix,
              digits.count <= 32 else {
            throw BookReviewError.invalidID(text)
        }
        let ids = try await postgres.withConnection { try BookReviewRows.ids(startingWith: digits, on: $0) }
        switch ids.count {
        case 0: throw BookReviewError.noMatchingReview(typed)
        case 1: return ids[0]
        default: throw BookReviewError.ambiguousID(typed)
        }
    }

    /// Accepts candidate `index` (0-based, best first) of review `id`: adds it with
    /// ``CatalogBooks/add(_:on:)`` (a book whose ISBN-13 the catalog has is that book, not a
    /// second one) and records the book; or, with `asRead: true`, adds a book with the title and
    /// author as read (its authors split as ``PersonName/names(in:)`` splits them). In one
    /// transaction, with the item's row locked, so two people cannot decide it twice.
    ///
    /// An item about a catalog book (``BookReview/existingBookID``: an imported row no book
    /// matched surely) adds nothing: the candidate is applied to *that* book (its details, score
    /// and evidence become the book's enrichment; the reader's title and authors stay), and its
    /// cover, when the candidate has an Open Library cover id, is fetched by a follow-up
    /// ``BookEnrichJob`` (with ``enrichAdded``); `asRead: true` keeps the book as it is (``keep(_:)``).
    ///
    /// - Throws: ``BookReviewError``: ``BookReviewError/twoChoices`` or
    ///   ``BookReviewError/noChoice`` (give exactly one of `index` and `asRead`), an unknown id, a
    ///   review decided already, an index out of range; ``CatalogBooksError/noTitle``.
    public func accept(_ id: UUID, candidate index: Int?, asRead: Bool) async throws -> BookReview {
        if asRead && index != nil { throw BookReviewError.twoChoices }
        if !asRead && index == nil { throw BookReviewError.noChoice }
        let enrich = enrichAdded, politeness = politeness
        return try await postgres.withTransaction { connection in
            let review = try Self.openReview(id, on: connection)
            if let index, !review.candidates.indices.contains(index) {
                throw BookReviewError.candidateOutOfRange(id, index: index, count: review.candidates.count)
            }
            if let book = review.existingBookID {
                guard let index else { return try BookReviewRows.decide(id, state: "kept", bookID: book, on: connection) }
                let coverPending = try BookEnrichRows.applyAccepted(review.candidates[index], to: book, fetchCover: enrich, on: connection)
                if coverPending {
                    try JobClient.enqueue([try JobRequest(BookEnrichJob(bookIDs: [book], parts: [.cover]), options: JobOptions(cost: 1))],
                                          in: connection)
                }
                return try BookReviewRows.decide(id, state: "accepted", bookID: book, on: connection)
            }
            let candidate: BookCandidate
            if let index {
                candidate = review.candidates[index].candidate
            } else {
                candidate = BookCandidate(title: review.title, authors: PersonName.names(in: review.author ?? ""))
            }
            let (bookID, existed) = try CatalogBooks.add(candidate, on: connection)
            if enrich && !existed {
                if let politeness { _ = try JobClient.addLimitIfAbsent(politeness, in: connection) }
                try JobClient.enqueue([try JobRequest(BookEnrichJob(bookIDs: [bookID]), options: JobOptions(cost: 1))], in: connection)
            }
            return try BookReviewRows.decide(id, state: "accepted", bookID: bookID, on: connection)
        }
    }

    /// Keeps the catalog book review `id` is about as it is (the reader's own fields, no
    /// candidate applied) and closes the item: state `kept`.
    /// - Throws: ``BookReviewError/nothingToKeep(_:)`` for an item that is no catalog book yet (a
    ///   spine: accept it as read or reject it); an unknown id or a review decided already.
    public func keep(_ id: UUID) async throws -> BookReview {
        try await postgres.withTransaction { connection in
            let review = try Self.openReview(id, on: connection)
            guard let book = review.existingBookID else { throw BookReviewError.nothingToKeep(id) }
            return try BookReviewRows.decide(id, state: "kept", bookID: book, on: connection)
        }
    }

    /// Rejects review `id`: nothing is added to the catalog (an item about a catalog book leaves
    /// that book as it is, like ``keep(_:)``, but is recorded `rejected`).
    /// - Throws: ``BookReviewError`` for an unknown id or a review decided already.
    public func reject(_ id: UUID) async throws -> BookReview {
        try await postgres.withTransaction { connection in
            _ = try Self.openReview(id, on: connection)
            return try BookReviewRows.decide(id, state: "rejected", bookID: nil, on: connection)
        }
    }

    /// The item, locked, if it is open.
    private static func openReview(_ id: UUID, on connection: PostgresConnection) throws -> BookReview {
        guard let review = try BookReviewRows.review(id, locking: true, on: connection) else { throw BookReviewError.unknownReview(id) }
        guard review.state == "open" else { throw BookReviewError.decided(id, state: review.state) }
        return review
    }
}
