import BookCatalog
import BookImport
import Foundation
import Postgres
import RepartoRuntime

/// `bookshelf-scan.match`: every spine of one photo matched, failing loudly rather than adding
/// the wrong book: first against the reader's catalog (a book they have), then against Open
/// Library's search. A match at or above ``BookMatcher/acceptThreshold`` read with confidence
/// becomes a catalog book (or the one already there with its ISBN); anything else goes to
/// `reparto books review` with its candidates and is never merged into another book. Books added
/// get their details and covers as an import's do (one `book-import.enrich` job).
public struct MatchShelfJob: JobParameters {
    public static let kind = "bookshelf-scan.match"
    public static let queue = "books"
    public static let timeout: Double = 900
    /// Below this confidence a reading is never added without a person, whatever it matches.
    public static let minimumConfidence = 0.5

    public var productionID: UUID
    public var photo: Int

    /// Open Library's politeness limit, as the import's enrichment uses.
    public var limitKey: String? { BookEnrichJob.defaultLimit }

    public init(productionID: UUID, photo: Int) { (self.productionID, self.photo) = (productionID, photo) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        productionID = try container.decode(UUID.self, forKey: .productionID)
        photo = try container.decode(Int.self, forKey: .photo, in: 0...(BookshelfScanClient.maxPhotos - 1))
    }

    public struct Result: Codable, Sendable, Hashable {
        public var spines: Int
        public var owned: Int
        public var added: Int
        public var toReview: Int
        public var requests: Int
    }
}

/// The work of `bookshelf-scan.match`.
struct ShelfMatcher: Sendable {
    var search: BookSearch?
    var postgres: PostgresClient?
    /// The limit on Open Library created with the first books a scan adds, when none exists.
    var politeness: LimitSpec?

    /// What the matching decided for one spine, before the transaction.
    enum Decision: Sendable {
        case owned(UUID, BookMatch)
        case add(BookMatch)
        case review([BookMatch])
    }

    func run(_ job: MatchShelfJob, context: JobContext) async throws -> MatchShelfJob.Result {
        guard let postgres, let search else { throw JobError.permanent("\(MatchShelfJob.kind) needs the database (this process has none)") }
        let production = job.productionID, index = job.photo
        guard let photo = try await postgres.withConnection({ try ScanRows.photo(production, photo: index, on: $0) }) else {
            throw JobError.permanent("\(MatchShelfJob.kind): the scan has no photo \(index)")
        }
        guard let spines = photo.spines else { throw JobError.permanent("\(MatchShelfJob.kind): photo \(index) was not read") }
        var decisions: [(ShelfSpine, Decision)] = []
        var requests = 0
        for spine in spines {
            let owned = try await postgres.withConnection { connection in
                try CatalogBooks.lookup(title: spine.title, author: spine.author, isbn13: nil, on: connection)
            }
            let known = BookMatcher.ranked(title: spine.title, author: spine.author, candidates: owned.map(\.candidate))
            if let best = known.first, best.score >= BookMatcher.acceptThreshold, let id = best.candidate.catalogID {
                decisions.append((spine, .owned(id, best)))
                continue
            }
            var found = try await search.candidates(title: spine.title, author: spine.author)
            requests += found.requests
            // A worn spine read with digits for letters (Harb0ur, Si1ent) finds nothing as read:
            // ask again with the letters back. The matcher still scores what comes back.
            if found.candidates.isEmpty, let repaired = Self.repairedOCR(spine.title) {
                found = try await search.candidates(title: repaired, author: spine.author)
                requests += found.requests
            }
            let ranked = BookMatcher.ranked(title: spine.title, author: spine.author, candidates: found.candidates)
            if let best = ranked.first, best.score >= BookMatcher.acceptThreshold, spine.confidence >= MatchShelfJob.minimumConfidence {
                decisions.append((spine, .add(best)))
            } else {
                decisions.append((spine, .review(Array((known + ranked).sorted { $0.score > $1.score }.prefix(3)))))
            }
        }
        context.reportCost(Double(requests))
        let decided = decisions, reference = photo.sourceName, asked = requests, politeness = self.politeness
        context.transactionalResult { connection -> MatchShelfJob.Result in
            var outcomes: [ScanRows.SpineOutcome] = []
            var added: [UUID] = []
            for (spine, decision) in decided {
                switch decision {
                case .owned(let id, let match):
                    outcomes.append(.init(spine: spine, outcome: "owned", bookID: id, score: match.score, evidence: match.evidence))
                case .add(let match):
                    let (id, existed) = try CatalogBooks.add(match.candidate, on: connection)
                    if !existed { added.append(id) }
                    outcomes.append(.init(spine: spine, outcome: existed ? "owned" : "added", bookID: id, score: match.score,
                                          evidence: match.evidence + (existed ? ["its ISBN is already in the catalog"] : [])))
                case .review(let candidates):
                    let review = try BookReviews.open(source: "bookshelf-scan", productionID: production,
                                                      reference: "photo \(index + 1) (\(reference)), spine \(spine.position)",
                                                      title: spine.title, author: spine.author, candidates: candidates, on: connection)
                    let best = candidates.first
                    outcomes.append(.init(spine: spine, outcome: "review", reviewID: review, score: best?.score,
                                          evidence: Self.reviewReason(spine: spine, best: best)))
                }
            }
            try ScanRows.setMatched(production, photo: index, outcomes: outcomes, on: connection)
            if !added.isEmpty {
                // Details and covers as an import's books get them, under Open Library's polite limit.
                if let politeness { _ = try JobClient.addLimitIfAbsent(politeness, in: connection) }
                try JobClient.enqueue([try JobRequest(BookEnrichJob(bookIDs: added),
                                                      options: JobOptions(productionID: production, stage: ScanRequest.Stage.match.rawValue,
                                                                          cost: Double(added.count)))],
                                      in: connection)
            }
            return MatchShelfJob.Result(spines: outcomes.count, owned: outcomes.filter { $0.outcome == "owned" }.count,
                                        added: added.count, toReview: outcomes.filter { $0.outcome == "review" }.count, requests: asked)
        }
        return MatchShelfJob.Result(spines: spines.count, owned: 0, added: 0, toReview: 0, requests: requests)
    }

    /// `title` with digits inside words read as the letters they are mistaken for (0 → o, 1 → l,
    /// 5 → s), nil when no word mixes digits and letters.
    static func repairedOCR(_ title: String) -> String? {
        var changed = false
        let words = title.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            guard word.contains(where: \.isLetter), word.contains(where: { "015".contains($0) }) else { return String(word) }
            changed = true
            return String(word.map { character -> Character in
                switch character {
                case "0": "o"
                case "1": "l"
                case "5": "s"
                default: character
                }
            })
        }
        return changed ? words.joined(separator: " ") : nil
    }

    /// Why a spine waits for a person, in words.
    static func reviewReason(spine: ShelfSpine, best: BookMatch?) -> [String] {
        var reasons: [String] = []
        if spine.confidence < MatchShelfJob.minimumConfidence {
            reasons.append("read with confidence \(String(format: "%.2f", spine.confidence)), below \(MatchShelfJob.minimumConfidence)")
        }
        if let best {
            if best.score < BookMatcher.acceptThreshold {
                reasons.append("best candidate scored \(String(format: "%.2f", best.score)), below \(BookMatcher.acceptThreshold)")
            }
            reasons += best.evidence
        } else {
            reasons.append("no candidate found")
        }
        return reasons
    }
}
