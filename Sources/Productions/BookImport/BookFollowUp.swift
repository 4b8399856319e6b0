import BookCatalog
import Foundation
import Postgres
import RepartoRuntime

/// Follow-up enrich jobs (``BookEnrichJob/parts``): the covers and Google Books answers a service
/// held back, asked for when its hold ends.
///
/// A follow-up runs under its part's limit, outside the import's production (the import finishes
/// without waiting for a quota to come back). It asks only what each book still has pending. When
/// the service is still held before anything was done, the job is "retry at" the hold's end
/// (rescheduled without an attempt, and its limit blocked); when it is held part-way, what was
/// done is stored and the rest goes to a new follow-up, so nothing already fetched is fetched again.
struct BookFollowUp: Sendable {
    let enricher: BookEnricher
    let postgres: PostgresClient

    /// The most books one follow-up job carries.
    static let booksPerJob = 100

    /// The lane a part's service is held back in.
    static func lane(_ part: BookEnrichJob.Part) -> BookServiceLane {
        switch part {
        case .cover: .covers
        case .googleBooks: .googleBooks
        }
    }

    /// One follow-up job per part (and per ``booksPerJob`` books) of the books that have it
    /// pending, to run when the part's hold ends (or shortly, when no hold is left).
    static func requests(for pending: [(UUID, Set<BookEnrichJob.Part>)], pacer: BookServicePacer) async throws -> [JobRequest] {
        var requests: [JobRequest] = []
        for part in BookEnrichJob.Part.allCases {
            let ids = pending.filter { $0.1.contains(part) }.map(\.0)
            guard !ids.isEmpty else { continue }
            let after = try await pacer.heldUntil(lane(part)) ?? Date().addingTimeInterval(5)
            for start in stride(from: 0, to: ids.count, by: booksPerJob) {
                let batch = Array(ids[start..<min(start + booksPerJob, ids.count)])
                requests.append(try JobRequest(BookEnrichJob(bookIDs: batch, parts: [part]),
                                               options: JobOptions(runAfter: after, cost: Double(batch.count))))
            }
        }
        return requests
    }

    /// What the follow-up did for one book.
    private struct Done: Sendable {
        var id: UUID
        var part: BookEnrichJob.Part
        var coverPath: String?
        var google: BookMetadata?
    }

    func run(_ ids: [UUID], parts: Set<BookEnrichJob.Part>, context: JobContext) async throws -> BookEnrichResult {
        let books = try await postgres.withConnection { try BookEnrichRows.books(ids, production: nil, on: $0) }
        var done: [Done] = []
        var left: [(UUID, Set<BookEnrichJob.Part>)] = []
        var requests = BookEnricher.Requests(), keyedCovers = 0
        var result = BookEnrichResult()
        var heldLane: BookServiceLane?
        for book in books {
            let todo = parts.intersection(book.pending)
            guard heldLane == nil else {
                left.append((book.id, todo))
                continue
            }
            var rest = todo
            for part in BookEnrichJob.Part.allCases where todo.contains(part) {
                switch part {
                case .cover:
                    guard let url = BookCoverFetcher.source(id: book.coverID, url: book.coverURL, settings: enricher.settings) else {
                        done.append(Done(id: book.id, part: .cover))
                        rest.remove(.cover)
                        continue
                    }
                    let (outcome, sent) = try await enricher.covers.fetch(url)
                    if sent {
                        requests.total += 1
                        if !BookServiceClient.isCoverByID(url) { keyedCovers += 1 }
                    }
                    switch outcome {
                    case let .stored(path):
                        done.append(Done(id: book.id, part: .cover, coverPath: path))
                        result.covers += 1
                        rest.remove(.cover)
                    case let .problem(reason):
                        done.append(Done(id: book.id, part: .cover))
                        result.coverProblems.append(reason)
                        rest.remove(.cover)
                    case .deferred:
                        heldLane = .covers
                    }
                case .googleBooks:
                    guard let isbn = book.isbn13 else {
                        done.append(Done(id: book.id, part: .googleBooks))
                        rest.remove(.googleBooks)
                        continue
                    }
                    switch try await enricher.googleVolume(isbn, requests: &requests) {
                    case let .found(metadata):
                        let agrees = !BookEnricher.authorsDisagree(book, BookCandidate(title: metadata.title, authors: metadata.authors))
                        done.append(Done(id: book.id, part: .googleBooks, google: agrees ? metadata : nil))
                        rest.remove(.googleBooks)
                        // A cover Google names for a book without one comes in a cover follow-up.
                        if agrees, metadata.coverURL != nil, !book.hasCover, book.coverID == nil { rest.insert(.cover) }
                    case .none, .refused:
                        done.append(Done(id: book.id, part: .googleBooks))
                        rest.remove(.googleBooks)
                    case .held:
                        heldLane = .googleBooks
                    }
                }
                if heldLane != nil { break }
            }
            if !rest.isEmpty { left.append((book.id, rest)) }
        }
        if let heldLane, done.isEmpty {
            // Nothing done yet: the whole job waits for the hold, and its limit with it.
            let until = try await enricher.client.pacer.heldUntil(heldLane) ?? Date().addingTimeInterval(heldLane.defaultHold)
            throw BookServiceError.held(service: heldLane.rawValue, until: until, reason: "still held back")
        }
        context.reportCost(Double(keyedCovers + requests.openLibrary))
        let again = try await Self.requests(for: left.filter { !$0.1.isEmpty }, pacer: enricher.client.pacer)
        let finished = done
        context.transactional { connection in
            for item in finished {
                switch item.part {
                case .cover: try BookEnrichRows.storeCover(item.id, path: item.coverPath, on: connection)
                case .googleBooks: try BookEnrichRows.storeGoogle(item.id, item.google, on: connection)
                }
            }
            if !again.isEmpty { try JobClient.enqueue(again, in: connection) }
        }
        result.enriched = Set(done.filter { $0.coverPath != nil || $0.google != nil }.map(\.id)).count
        result.requests = requests.total
        result.followUps = again.count
        return result
    }
}
