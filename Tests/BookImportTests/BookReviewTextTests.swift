import BookCatalog
import BookImport
import Foundation
import Testing

/// How `reparto books review` reads on a terminal, line by line (no server).
@Suite("Book review text", .timeLimit(.minutes(1)))
struct BookReviewTextTests {
    static let created = Date(timeIntervalSince1970: 1_790_000_000)

    static func review(_ id: String, reference: String, title: String, author: String?, candidates: [BookMatch],
                       state: String = "open", bookID: UUID? = nil) -> BookReview {
        BookReview(id: UUID(uuidString: id)!, source: "bookshelf-scan", productionID: nil, reference: reference, title: title,
                   author: author, candidates: candidates, state: state, bookID: bookID, createdAt: created,
                   decidedAt: state == "open" ? nil : created)
    }

    static let dune = review("0a1b2c3d-0000-4000-8000-000000000001", reference: "photo 3, spine 7", title: "DUNE", author: nil,
                             candidates: BookMatcher.ranked(title: "DUNE", author: nil, candidates: [
                                 BookCandidate(title: "Dune", authors: ["Frank Herbert"], year: 1965),
                                 BookCandidate(title: "Dune Messiah", authors: ["Frank Herbert"], year: 1969),
                             ]))
    static let road = review("ffee0011-0000-4000-8000-000000000002", reference: "photo 1, spine 2", title: "The Road",
                             author: "Cormac McCarthy", candidates: [
                                 BookMatcher.score(title: "The Road", author: "Cormac McCarthy",
                                                   candidate: BookCandidate(title: "The Road", authors: ["Jack London"])),
                             ])
    static let blank = review("12345678-0000-4000-8000-000000000003", reference: "line 12", title: "Untitled \u{1B}[31mred",
                              author: "Nobody", candidates: [])

    @Test func theListShowsEachItemsBestCandidateOnOneLine() {
        let text = BookReviewText.list([Self.dune, Self.road, Self.blank])
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 5, "\(text)")
        #expect(lines[4] == "")
        #expect(lines[0] == "ID        REFERENCE         AS READ                     BEST CANDIDATE [0]                     SCORE  EVIDENCE")
        #expect(lines[1] == "0a1b2c3d  photo 3, spine 7  DUNE                        Dune / Frank Herbert (1965) (+1 more)  0.84   "
                + "title equal; no author read; the title alone stays below the threshold")
        #expect(lines[2] == "ffee0011  photo 1, spine 2  The Road / Cormac McCarthy  The Road / Jack London                 0.50   "
                + "title equal; authors disagree: read Cormac McCarthy, the candidate is by Jack London")
        // Text from outside is made harmless for the terminal.
        #expect(lines[3] == "12345678  line 12           Untitled red / Nobody       no candidates                          -      -")
        #expect(!text.contains("\u{1B}"))
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") })
    }

    @Test func allItemsHaveAStateColumnAndAnEmptyListSaysSo() {
        let accepted = Self.review("0a1b2c3d-0000-4000-8000-000000000001", reference: "photo 3, spine 7", title: "DUNE", author: nil,
                                   candidates: Self.dune.candidates, state: "accepted", bookID: UUID())
        let text = BookReviewText.list([accepted], states: true)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("ID        STATE     REFERENCE"))
        #expect(lines[1].hasPrefix("0a1b2c3d  accepted  photo 3, spine 7  DUNE"))
        #expect(BookReviewText.list([]) == "no open reviews\n")
        #expect(BookReviewText.list([], states: true) == "no reviews\n")
    }

    @Test func aDecisionIsOneLine() {
        let book = UUID(uuidString: "AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE")!
        let accepted = Self.review("0a1b2c3d-0000-4000-8000-000000000001", reference: "photo 3, spine 7", title: "DUNE", author: "HERBERT",
                                   candidates: [], state: "accepted", bookID: book)
        #expect(BookReviewText.decided(accepted)
                == "accepted 0a1b2c3d (photo 3, spine 7: DUNE / HERBERT): catalog book aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee\n")
        let rejected = Self.review("ffee0011-0000-4000-8000-000000000002", reference: "line 4", title: "The Road", author: nil,
                                   candidates: [], state: "rejected")
        #expect(BookReviewText.decided(rejected) == "rejected ffee0011 (line 4: The Road): nothing added\n")
    }

    @Test func errorsReadAsOneLine() {
        let id = UUID(uuidString: "0a1b2c3d-0000-4000-8000-000000000001")!
        let errors: [BookReviewError] = [
            .unknownReview(id), .noMatchingReview("0a1b2c3d"), .ambiguousID("0a1b2c3d"), .invalidID("xyz"),
            .decided(id, state: "rejected"), .candidateOutOfRange(id, index: 5, count: 2), .candidateOutOfRange(id, index: 0, count: 0),
            .noChoice, .twoChoices, .invalidSource("camera"), .invalidState("done"), .noTitle, .invalidLimit(0),
        ]
        for error in errors {
            #expect(!error.description.isEmpty)
            #expect(!error.description.contains("\n"))
        }
        #expect(BookReviewError.decided(id, state: "rejected").description == "review 0a1b2c3d is already rejected")
        #expect(BookReviewError.candidateOutOfRange(id, index: 5, count: 2).description == "review 0a1b2c3d has 2 candidates (0 to 1), not 5")
        #expect(BookReviewError.invalidID("xyz").description
                == "'xyz' is not a review id: give the whole id or at least its first 8 hex digits")
    }

    @Test func bookEnrichJobIsConstructibleFromOutside() throws {
        let ids = [UUID(), UUID()]
        let job = BookEnrichJob(bookIDs: ids)
        #expect(job.bookIDs == ids)
        #expect(job.limitKey == "books:openlibrary")
        #expect(BookSearch.limitKey == BookEnrichJob.defaultLimit)
    }
}
