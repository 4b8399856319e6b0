import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// An Open Library stand-in for `reparto bench import` that keeps the live service's rules:
///
/// - **Limits.** The API (`/api/books`, `/search.json`) allows 1 request a second, 3 when the
///   User-Agent carries a contact (an `@`), as a bucket of one second's requests; past it, 429
///   with `Retry-After`. Covers looked up by ISBN (`/b/isbn/…`) are limited to 100 per 5 minutes
///   and answered 403 past that; covers by id (`/b/id/…`) are not limited. `speedup` makes every
///   limit that many times faster (for a run that finishes in minutes).
/// - **Fields.** `/search.json` answers its default fields only unless `fields=` names others
///   (no `isbn`, `publisher`, `number_of_pages_median` or `subject` by default).
/// - **Answers.** Every ISBN is an edition (`jscmd=data`: its cover named by id, as Open Library
///   names it); a search finds the labelled set's works (``ImportBenchLabels``) whose title holds
///   every word asked, by an author with one of the names asked.
public final class BookServiceStandIn: Sendable {
    /// One request as the stand-in saw it.
    public struct Seen: Sendable {
        /// Seconds since the stand-in started.
        public var at: Double
        /// `api`, `cover-id` or `cover-isbn`.
        public var kind: String
        public var status: Int
    }

    private let seen = Mutex<[Seen]>([])
    private let started = ContinuousClock.now
    private let task = Mutex<Task<Void, any Error>?>(nil)
    /// The API bucket: tokens, as of an instant (seconds since start).
    private let bucket = Mutex<(tokens: Double, at: Double)?>(nil)
    /// The instants of ISBN-keyed covers in the last window.
    private let keyedCovers = Mutex<[Double]>([])
    public let port: Int
    public let speedup: Double

    private init(port: Int, speedup: Double) { (self.port, self.speedup) = (port, speedup) }

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var requests: [Seen] { seen.withLock { $0 } }
    public var requestCount: Int { seen.withLock { $0.count } }

    /// The fields `/search.json` answers without `fields=` (openlibrary/plugins/worksearch/schemes/works.py).
    static let defaultSearchFields: Set<String> = [
        "key", "author_name", "author_key", "title", "subtitle", "edition_count", "ia", "has_fulltext", "first_publish_year",
        "cover_i", "cover_edition_key", "public_scan_b", "lending_edition_s", "lending_identifier_s", "language", "ia_collection_s",
        "ebook_access",
    ]

    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0xFF, 0xD9]

    /// Starts the stand-in on a free port of 127.0.0.1 with the labelled set's `works`.
    public static func start(works: [ImportBenchLabels.Work] = [], speedup: Double = 1, logger: Logger) async throws -> BookServiceStandIn {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let holder = Mutex<BookServiceStandIn?>(nil)
        let router = Router()
        router.get("/api/books") { request, _ -> Response in
            guard let standIn = holder.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            if let refused = standIn.admitAPI(request) { return refused }
            let keys = request.uri.queryParameters["bibkeys"].map(String.init) ?? ""
            let isbn = keys.hasPrefix("ISBN:") ? String(keys.dropFirst(5)) : keys
            let number = Int(isbn.dropFirst(3).dropLast()) ?? 0
            // Every tenth edition has no cover; the others name theirs by id, as `jscmd=data` does.
            let cover = number % 10 == 9 ? "" : """
                , "cover": {"small": "\(standIn.baseURL)/b/id/\(number)-S.jpg", "medium": "\(standIn.baseURL)/b/id/\(number)-M.jpg",
                            "large": "\(standIn.baseURL)/b/id/\(number)-L.jpg"}
                """
            let body = """
                {"ISBN:\(isbn)": {"url": "\(standIn.baseURL)/books/OL\(number)M/Book", "key": "/books/OL\(number)M", "title": "Book \(number)",
                 "authors": [{"url": "\(standIn.baseURL)/authors/OL1A/Bench_Author", "name": "Author \(number % 400)"}],
                 "number_of_pages": 321, "publishers": [{"name": "Bench Press"}], "publish_date": "2001",
                 "subjects": [{"name": "Benchmarks", "url": "\(standIn.baseURL)/subjects/benchmarks"}],
                 "identifiers": {"isbn_13": ["\(isbn)"], "openlibrary": ["OL\(number)M"]}\(cover)}}
                """
            return json(body)
        }
        router.get("/search.json") { request, _ -> Response in
            guard let standIn = holder.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            if let refused = standIn.admitAPI(request) { return refused }
            let query = request.uri.queryParameters
            let title = query["title"].map(String.init) ?? ""
            let author = query["author"].map(String.init)
            let fields = query["fields"].map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
            let limit = query["limit"].flatMap { Int(String($0)) } ?? 100
            let found = Self.search(works, title: title, author: author).prefix(max(0, min(limit, 1000)))
            let wanted = fields ?? defaultSearchFields
            let docs = found.map { work -> [String: Any] in
                let doc: [String: Any] = [
                    "key": work.key, "title": work.title, "author_name": work.authors, "author_key": work.authors.map { _ in "OL1A" },
                    "first_publish_year": work.year, "cover_i": work.coverID, "edition_count": 3, "has_fulltext": false,
                    "language": ["eng"], "ebook_access": "no_ebook",
                    "isbn": [work.isbn13], "publisher": ["Bench House"], "number_of_pages_median": 288, "subject": ["Fiction"],
                ]
                return wanted.contains("*") ? doc : doc.filter { wanted.contains($0.key) }
            }
            let answer: [String: Any] = ["numFound": found.count, "start": 0, "numFoundExact": true, "docs": Array(docs)]
            return json(String(decoding: try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys]), as: UTF8.self))
        }
        router.get("/b/id/{name}") { _, context -> Response in
            holder.withLock { $0?.record("cover-id", 200) }
            // A different image per cover, so each is a file of its own.
            let name = context.parameters.get("name") ?? ""
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: jpeg + Array(name.utf8))))
        }
        router.get("/b/isbn/{name}") { _, context -> Response in
            guard let standIn = holder.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            guard standIn.admitKeyedCover() else {
                standIn.record("cover-isbn", 403)
                return Response(status: .forbidden, headers: [.contentType: "text/html"],
                                body: .init(byteBuffer: ByteBuffer(string: "<html><body>403 Forbidden</body></html>")))
            }
            standIn.record("cover-isbn", 200)
            let name = context.parameters.get("name") ?? ""
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: jpeg + Array(name.utf8))))
        }
        let app = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        var port = 0
        for await bound in stream { port = bound; break }
        guard port > 0 else { task.cancel(); throw BenchError("the book service stand-in did not start") }
        let standIn = BookServiceStandIn(port: port, speedup: speedup)
        standIn.task.withLock { $0 = task }
        holder.withLock { $0 = standIn }
        return standIn
    }

    static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The works whose title holds every word of `title` and, when `author` is given, one of
    /// whose authors has one of its words (Open Library's `author=` matches a name in part).
    static func search(_ works: [ImportBenchLabels.Work], title: String, author: String?) -> [ImportBenchLabels.Work] {
        func words(_ text: String) -> Set<String> {
            Set(text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init))
        }
        let wanted = words(title), names = words(author ?? "")
        guard !wanted.isEmpty else { return [] }
        return works.filter { work in
            wanted.isSubset(of: words(work.title))
                && (names.isEmpty || work.authors.contains { !words($0).isDisjoint(with: names) })
        }
    }

    /// The API's rate: a bucket of one second's requests, refilled at 1/s (3/s with a contact),
    /// times the speedup. Nil when the request may go; else the 429 to answer.
    private func admitAPI(_ request: Request) -> Response? {
        let agent = request.headers[.userAgent] ?? ""
        let rate = (agent.contains("@") ? 3.0 : 1.0) * speedup
        let now = elapsed()
        let allowed = bucket.withLock { state -> Bool in
            var (tokens, at) = state ?? (max(1, rate), now)
            tokens = min(max(1, rate), tokens + (now - at) * rate)
            at = now
            if tokens >= 1 {
                state = (tokens - 1, at)
                return true
            }
            state = (tokens, at)
            return false
        }
        record("api", allowed ? 200 : 429)
        guard !allowed else { return nil }
        let retry = max(1, Int(min((1 / rate).rounded(.up), 86_400)))
        return Response(status: .tooManyRequests, headers: [.contentType: "text/html", .retryAfter: "\(retry)"],
                        body: .init(byteBuffer: ByteBuffer(string: "<html><body>429 Too Many Requests</body></html>")))
    }

    /// 100 covers by ISBN per 5 minutes (divided by the speedup).
    private func admitKeyedCover() -> Bool {
        let now = elapsed(), window = 300 / speedup
        return keyedCovers.withLock { instants in
            instants.removeAll { $0 <= now - window }
            guard instants.count < 100 else { return false }
            instants.append(now)
            return true
        }
    }

    private func elapsed() -> Double {
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private func record(_ kind: String, _ status: Int) {
        let at = elapsed()
        seen.withLock { $0.append(Seen(at: at, kind: kind, status: status)) }
    }

    public func stop() {
        task.withLock { $0?.cancel() }
    }
}
