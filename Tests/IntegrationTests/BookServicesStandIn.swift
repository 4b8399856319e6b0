import Foundation
import RepartoTestSupport

/// An Open Library (and covers) stand-in that keeps the live service's rules, its limits made
/// faster for a test:
///
/// - the API (`/api/books`, `/search.json`) allows `rate` requests a second as a bucket of one
///   request (3× with a contact in the User-Agent, as Open Library allows; a request up to half
///   an interval early passes, as a real limiter's slack lets one the network delayed less than
///   the one before), and answers 429 with
///   `Retry-After: 1` past it;
/// - `/search.json` answers its default fields only unless `fields=` names others
///   (``OpenLibraryStandIn/defaultSearchFields``), and finds the works whose title holds every
///   word asked, by an author with one of the words of `author=`;
/// - `/api/books` (`jscmd=data`) answers the editions of ``editions`` (any other ISBN: `{}`),
///   their covers named by id on this server, as Open Library names them;
/// - covers by id (`/b/id/<id>-L.jpg`) are images; ``coverFaults`` answer first, in order.
final class BookServicesStandIn: @unchecked Sendable {
    // `@unchecked Sendable`: every stored `var` is read and written under `lock` only.
    private let lock = NSLock()
    private let started = ContinuousClock.now
    private var tokens = 1.0
    private var refilledAt = 0.0
    private var seen: [(at: Double, path: String, status: Int)] = []
    private var faults: [FakeHTTPServer.Reply] = []
    /// Requests a second without a contact.
    let rate: Double
    let works: [Work]
    let editions: [String: Edition]

    struct Work: Sendable {
        var key: String
        var title: String
        var authors: [String]
        var year: Int
        var coverID: Int
        var isbn: String
        var publisher = "Harvill Press"
        var pages = 288
        var subjects = ["Fiction"]

        /// The doc `/search.json` gives with every field.
        var doc: [String: Any] {
            ["key": key, "title": title, "author_name": authors, "author_key": authors.map { _ in "OL1A" }, "first_publish_year": year,
             "cover_i": coverID, "edition_count": 4, "has_fulltext": false, "language": ["eng"], "ebook_access": "no_ebook",
             "isbn": [isbn], "publisher": [publisher], "number_of_pages_median": pages, "subject": subjects]
        }
    }

    struct Edition: Sendable {
        var title: String
        var authors: [String]
        var coverID: Int?
    }

    init(rate: Double, works: [Work] = [], editions: [String: Edition] = [:]) {
        (self.rate, self.works, self.editions) = (rate, works, editions)
    }

    /// Replies the covers give first, one per cover request, in order.
    func failCovers(with replies: [FakeHTTPServer.Reply]) { lock.withLock { faults = replies } }

    /// API requests: when (seconds since the start) and their status.
    var api: [(at: Double, status: Int)] {
        lock.withLock { seen.filter { $0.path != "cover" }.map { ($0.at, $0.status) } }
    }
    var covers: [Int] { lock.withLock { seen.filter { $0.path == "cover" }.map(\.status) } }
    /// The paths of the cover requests (`/b/id/<id>-L.jpg`), in order.
    var coverPaths: [String] { lock.withLock { coverRequests } }
    private var coverRequests: [String] = []

    private func now() -> Double {
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// One second's requests at most, refilled at the rate.
    private func admit(_ request: FakeHTTPServer.Request) -> Bool {
        let rate = self.rate * (request.headers["user-agent"]?.contains("@") == true ? 3 : 1)
        return lock.withLock {
            let at = now()
            tokens = min(1, tokens + (at - refilledAt) * rate)
            refilledAt = at
            let allowed = tokens >= 0.5
            if allowed { tokens = max(0, tokens - 1) }
            seen.append((at, request.path, allowed ? 200 : 429))
            return allowed
        }
    }

    @Sendable func reply(_ request: FakeHTTPServer.Request) -> FakeHTTPServer.Reply {
        let query = request.query.removingPercentEncoding ?? request.query
        let base = "http://127.0.0.1:\(request.headers["host"]?.split(separator: ":").last ?? "0")"
        if request.path.hasPrefix("/b/id/") {
            let fault: FakeHTTPServer.Reply? = lock.withLock {
                seen.append((now(), "cover", faults.isEmpty ? 200 : 403))
                coverRequests.append(request.path)
                return faults.isEmpty ? nil : faults.removeFirst()
            }
            if let fault { return fault }
            return .respond(status: 200, headers: [("Content-Type", "image/jpeg")],
                            body: OpenLibraryStandIn.jpeg + Data(request.path.utf8))
        }
        guard request.path == "/api/books" || request.path == "/search.json" else { return .respond(status: 404, headers: [], body: Data()) }
        guard admit(request) else {
            return .respond(status: 429, headers: [("Retry-After", "1"), ("Content-Type", "text/html")],
                            body: Data("<html><body>429 Too Many Requests</body></html>".utf8))
        }
        if request.path == "/api/books" {
            let isbn = Self.parameter("bibkeys", in: query).map { $0.hasPrefix("ISBN:") ? String($0.dropFirst(5)) : $0 } ?? ""
            guard let edition = editions[isbn] else { return OpenLibraryStandIn.json("{}") }
            var object: [String: Any] = ["key": "/books/OL\(isbn.suffix(6))M", "title": edition.title,
                                         "authors": edition.authors.map { ["name": $0, "url": "\(base)/authors/OL1A"] },
                                         "number_of_pages": 300, "publishers": [["name": "Ace"]], "publish_date": "1990",
                                         "identifiers": ["isbn_13": [isbn]]]
            if let cover = edition.coverID {
                object["cover"] = ["small": "\(base)/b/id/\(cover)-S.jpg", "medium": "\(base)/b/id/\(cover)-M.jpg",
                                   "large": "\(base)/b/id/\(cover)-L.jpg"]
            }
            let body = (try? JSONSerialization.data(withJSONObject: ["ISBN:\(isbn)": object], options: [.sortedKeys])) ?? Data()
            return .respond(status: 200, headers: [("Content-Type", "application/json")], body: body)
        }
        let titleWords = Self.words(Self.parameter("title", in: query) ?? "")
        let authorWords = Self.words(Self.parameter("author", in: query) ?? "")
        let found = works.filter { work in
            !titleWords.isEmpty && titleWords.isSubset(of: Self.words(work.title))
                && (authorWords.isEmpty || work.authors.contains { !Self.words($0).isDisjoint(with: authorWords) })
        }
        return OpenLibraryStandIn.search(found.map(\.doc), fields: OpenLibraryStandIn.fields(query))
    }

    static func parameter(_ name: String, in query: String) -> String? {
        query.split(separator: "&").first { $0.hasPrefix("\(name)=") }.map { String($0.dropFirst(name.count + 1)) }
    }

    static func words(_ text: String) -> Set<String> {
        Set(text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init))
    }
}
