import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// An unthrottled Open Library stand-in for `reparto bench import`: every ISBN is a known edition
/// with a cover (a few bytes of JPEG) on the same server. Counts what it was asked.
public final class BookServiceStandIn: Sendable {
    /// Request instants (seconds since the stand-in started), for the achieved rate.
    private let instants = Mutex<[Double]>([])
    private let started = ContinuousClock.now
    private let task = Mutex<Task<Void, any Error>?>(nil)
    public let port: Int

    private init(port: Int) { self.port = port }

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var requestCount: Int { instants.withLock { $0.count } }
    public var requestInstants: [Double] { instants.withLock { $0 } }

    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0xFF, 0xD9]

    /// Starts the stand-in on a free port of 127.0.0.1.
    public static func start(logger: Logger) async throws -> BookServiceStandIn {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let holder = Mutex<BookServiceStandIn?>(nil)
        let router = Router()
        router.get("/api/books") { request, _ -> Response in
            holder.withLock { $0?.record() }
            let keys = request.uri.queryParameters["bibkeys"].map(String.init) ?? ""
            let isbn = keys.hasPrefix("ISBN:") ? String(keys.dropFirst(5)) : keys
            let port = holder.withLock { $0?.port ?? 0 }
            let body = """
                {"ISBN:\(isbn)": {"key": "/books/OL\(isbn)M", "title": "Book \(isbn)", "authors": [{"name": "Bench Author"}],
                 "number_of_pages": 321, "publishers": [{"name": "Bench Press"}], "publish_date": "2001",
                 "subjects": [{"name": "Benchmarks"}], "identifiers": {"isbn_13": ["\(isbn)"]},
                 "cover": {"large": "http://127.0.0.1:\(port)/covers/\(isbn)-L.jpg"}}}
                """
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("/covers/{name}") { request, context -> Response in
            holder.withLock { $0?.record() }
            // A different image per book, so each cover is a file of its own.
            let name = context.parameters.get("name") ?? ""
            return Response(status: .ok, headers: [.contentType: "image/jpeg"],
                            body: .init(byteBuffer: ByteBuffer(bytes: jpeg + Array(name.utf8))))
        }
        let app = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        var port = 0
        for await bound in stream { port = bound; break }
        guard port > 0 else { task.cancel(); throw BenchError("the book service stand-in did not start") }
        let standIn = BookServiceStandIn(port: port)
        standIn.task.withLock { $0 = task }
        holder.withLock { $0 = standIn }
        return standIn
    }

    private func record() {
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        instants.withLock { $0.append(seconds) }
    }

    public func stop() {
        task.withLock { $0?.cancel() }
    }
}
