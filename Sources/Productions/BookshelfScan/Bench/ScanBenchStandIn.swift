import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// The services `reparto bench scan` talks to, on one local port: an OpenAI-compatible vision
/// endpoint (POST /v1/chat/completions) that answers each photo's spines after `latency`
/// seconds, and Open Library's search (GET /search.json) over the bench's books, giving only the
/// fields `fields=` names (its default set without it, which has no ISBNs).
final class ScanBenchStandIn: Sendable {
    let port: Int
    private let task: Task<Void, any Error>
    private let visionCalls = Mutex<[Double]>([])
    private let searches = Mutex(0)
    private let started = ContinuousClock.now

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var visionRequestInstants: [Double] { visionCalls.withLock { $0 } }
    var searchCount: Int { searches.withLock { $0 } }

    private init(port: Int, task: Task<Void, any Error>) { (self.port, self.task) = (port, task) }

    static func start(fixtures: ScanBenchFixtures, latency: Double, logger: Logger) async throws -> ScanBenchStandIn {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let holder = Mutex<ScanBenchStandIn?>(nil)
        let router = Router()
        router.post("/v1/chat/completions") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 40 * 1024 * 1024)
            holder.withLock { $0?.recordVision() }
            try await Task.sleep(for: .milliseconds(Int(latency * 1000)))
            guard let photo = Self.photoNumber(inRequest: Data(buffer: body)), photo < fixtures.photos.count else {
                return Self.json(status: .badRequest, #"{"error":{"message":"no readable image part","type":"invalid_request_error","param":"messages","code":null}}"#)
            }
            let spines = fixtures.photos[photo].enumerated().map { index, spine -> [String: Any] in
                ["title": spine.title, "author": spine.author as Any? ?? NSNull(), "confidence": spine.misread == nil ? 0.93 : 0.71,
                 "position": index + 1]
            }
            let content = String(decoding: try JSONSerialization.data(withJSONObject: ["spines": spines], options: [.sortedKeys]), as: UTF8.self)
            let answer: [String: Any] = [
                "id": "chatcmpl-bench", "object": "chat.completion", "created": 1_700_000_000, "model": "bench-vision",
                "choices": [["index": 0, "message": ["role": "assistant", "content": content, "refusal": NSNull()], "finish_reason": "stop"]],
                "usage": ["prompt_tokens": 1_105, "completion_tokens": 40 * spines.count, "total_tokens": 1_105 + 40 * spines.count],
            ]
            return Self.json(status: .ok, String(decoding: try JSONSerialization.data(withJSONObject: answer), as: UTF8.self))
        }
        router.get("/search.json") { request, _ -> Response in
            holder.withLock { $0?.searches.withLock { $0 += 1 } }
            let query = request.uri.queryParameters
            let title = query["title"].map(String.init) ?? query["q"].map(String.init) ?? ""
            let author = query["author"].map(String.init)
            let fields = query["fields"].map { Set($0.split(separator: ",").map(String.init)) }
            let limit = query["limit"].flatMap { Int(String($0)) } ?? 100
            let docs = Self.search(fixtures.books, title: title, author: author).prefix(max(0, min(limit, 100))).map { index -> [String: Any] in
                let book = fixtures.books[index]
                var doc: [String: Any] = ["key": "/works/OL\(100_000 + index)W", "title": book.full, "author_name": [book.author],
                                          "first_publish_year": book.year, "cover_i": 9_000_000 + index, "language": ["eng"]]
                // Fields Open Library gives only when asked for.
                doc["isbn"] = [book.isbn13]
                doc["publisher"] = ["Bench House"]
                doc["number_of_pages_median"] = 320
                let wanted = fields ?? ["key", "title", "author_name", "first_publish_year", "cover_i", "language"]
                return doc.filter { wanted.contains($0.key) }
            }
            let answer: [String: Any] = ["numFound": docs.count, "start": 0, "numFoundExact": true, "docs": Array(docs)]
            return Self.json(status: .ok, String(decoding: try JSONSerialization.data(withJSONObject: answer), as: UTF8.self))
        }
        let app = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        var port = 0
        for await bound in stream { port = bound; break }
        guard port > 0 else { task.cancel(); throw ScanBenchError("the stand-in did not start") }
        let standIn = ScanBenchStandIn(port: port, task: task)
        holder.withLock { $0 = standIn }
        return standIn
    }

    func stop() { task.cancel() }

    private func recordVision() {
        let elapsed = ContinuousClock.now - started
        visionCalls.withLock { $0.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) }
    }

    /// The photo a request carries, from the width of its first image (the fixtures encode it there).
    static func photoNumber(inRequest body: Data) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let messages = object["messages"] as? [[String: Any]] else { return nil }
        for message in messages {
            for part in message["content"] as? [[String: Any]] ?? [] {
                guard let url = (part["image_url"] as? [String: Any])?["url"] as? String, let comma = url.firstIndex(of: ","),
                      let image = Data(base64Encoded: String(url[url.index(after: comma)...])),
                      let photo = try? PhotoFile.inspect(Array(image.prefix(1 << 16)), name: "request") else { continue }
                return ScanBenchFixtures.photo(ofWidth: photo.width)
            }
        }
        return nil
    }

    /// Books whose title shares at least half of the query's words (case and punctuation aside),
    /// and whose author shares a word with the query's author when one is given: best overlap first.
    static func search(_ books: [ScanBenchFixtures.Book], title: String, author: String?) -> [Int] {
        func words(_ text: String) -> Set<String> {
            Set(text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init).filter { $0.count > 2 && $0 != "the" })
        }
        let wanted = words(title), authorWords = author.map(words) ?? []
        guard !wanted.isEmpty else { return [] }
        return books.indices.compactMap { index -> (Int, Int)? in
            let overlap = wanted.intersection(words(books[index].full)).count
            guard overlap * 2 >= wanted.count, overlap > 0 else { return nil }
            if !authorWords.isEmpty, authorWords.isDisjoint(with: words(books[index].author)) { return nil }
            return (index, overlap)
        }.sorted { $0.1 > $1.1 }.map(\.0)
    }

    private static func json(status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

struct ScanBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
