import BookCatalog
import Foundation
import TerminalText
import TextEscaping

/// How the review list reads on a terminal (`reparto books review`).
public enum BookReviewText {
    /// `books review`: one line per item, its id's first eight digits, where it was read, what
    /// was read, and its best candidate (index 0) with score and evidence. With `states`, a
    /// STATE column too (`--all`).
    public static func list(_ reviews: [BookReview], states: Bool = false) -> String {
        guard !reviews.isEmpty else { return states ? "no reviews\n" : "no open reviews\n" }
        var header = ["ID", "REFERENCE", "AS READ", "BEST CANDIDATE [0]", "SCORE", "EVIDENCE"]
        if states { header.insert("STATE", at: 1) }
        return TextTable.render(header: header, rows: reviews.map { review in
            var row = [BookReviewError.short(review.id), review.reference, asRead(review)]
            if let best = review.best {
                let more = review.candidates.count > 1 ? " (+\(review.candidates.count - 1) more)" : ""
                row += [book(best.candidate) + more, String(format: "%.2f", best.score), best.evidence.joined(separator: "; ")]
            } else {
                row += ["no candidates", "-", "-"]
            }
            if states { row.insert(review.state, at: 1) }
            return row
        })
    }

    /// `books review accept|reject|keep`: what was decided, one line. An item about a catalog
    /// book says whether the candidate was applied to it or it was left as it is.
    public static func decided(_ review: BookReview) -> String {
        let what = "\(review.state) \(BookReviewError.short(review.id)) (\(review.reference): \(asRead(review)))"
        var outcome = review.bookID.map { "catalog book \($0.uuidString.lowercased())" } ?? "nothing added"
        if let book = review.existingBookID {
            let id = book.uuidString.lowercased()
            switch review.state {
            case "accepted": outcome = "catalog book \(id), candidate applied"
            default: outcome = "catalog book \(id) left as it is"
            }
        }
        return TerminalSafe.clean("\(what): \(outcome)") + "\n"
    }

    /// "Dune / Frank Herbert", or the title alone when no author was read.
    static func asRead(_ review: BookReview) -> String {
        review.author.map { "\(review.title) / \($0)" } ?? review.title
    }

    /// "Dune: Deluxe Edition / Frank Herbert (1965)".
    static func book(_ candidate: BookCandidate) -> String {
        var text = candidate.fullTitle
        if !candidate.authors.isEmpty { text += " / " + candidate.authors.joined(separator: ", ") }
        if let year = candidate.year { text += " (\(year))" }
        return text
    }
}
