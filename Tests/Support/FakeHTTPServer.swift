import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 with an ephemeral port, for testing the HTTP providers.
/// One connection per request (`Connection: close`); each connection is served on its own thread.
///
/// `@unchecked Sendable`: the only mutable state (`_requests`) is guarded by `lock`;
/// the socket descriptor and handler are immutable after `init`.
public final class FakeHTTPServer: @unchecked Sendable {
    public struct Request: Sendable {
        public var method: String
        public var target: String
        public var headers: [String: String]  // lower-cased names
        public var body: Data
        public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
        public var query: String { target.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? "" }
    }

    public enum Reply: Sendable {
        /// A complete response.
        case respond(status: Int, headers: [(String, String)], body: Data)
        /// Headers announce `declaredLength` bytes but only `body` is sent before the connection closes.
        case truncated(status: Int, headers: [(String, String)], declaredLength: Int, body: Data)
        /// A complete response with `Transfer-Encoding: chunked` (no Content-Length) in pieces of
        /// `chunkSize` bytes, the way a streaming endpoint such as OpenAI's speech API sends audio.
        case chunked(status: Int, headers: [(String, String)], body: Data, chunkSize: Int)
        /// Never answer; wait until the client gives up and closes the connection, at most `hangLimit` s.
        case hang
    }

    /// The longest a `.hang` reply holds its connection open, in seconds.
    public static let hangLimit = 30

    public let port: Int
    private let listener: Int32
    private let handler: @Sendable (Request) -> Reply
    private let lock = NSLock()
    private var _requests: [Request] = []

    public var requests: [Request] { lock.withLock { _requests } }

    public init(handler: @escaping @Sendable (Request) -> Reply) throws {
        self.handler = handler
        let (fd, port) = try LoopbackListener.open()
        self.port = port
        self.listener = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting; the accept loop ends when `accept` fails on the shut-down socket.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let conn = accept(listener, nil, nil)
            if conn < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [self] in serve(conn) }
            thread.start()
        }
    }

    private func serve(_ conn: Int32) {
        defer { close(conn) }
        guard let request = readRequest(conn) else { return }
        lock.withLock { _requests.append(request) }
        switch handler(request) {
        case .respond(let status, let headers, let body):
            send(conn, head(status, headers + [("Content-Length", "\(body.count)")]) + body)
        case .truncated(let status, let headers, let declared, let body):
            send(conn, head(status, headers + [("Content-Length", "\(declared)")]) + body)
        case .chunked(let status, let headers, let body, let chunkSize):
            send(conn, head(status, headers + [("Transfer-Encoding", "chunked")]))
            var offset = body.startIndex
            while offset < body.endIndex {
                let piece = body[offset..<min(offset + max(chunkSize, 1), body.endIndex)]
                send(conn, Data((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Data("\r\n".utf8))
                offset += piece.count
            }
            send(conn, Data("0\r\n\r\n".utf8))
        case .hang:
            // Wait for the client to give up and close, but never longer than `hangLimit`: a
            // client without a working timeout then gets a closed connection (and its test a
            // wrong error) instead of hanging the suite.
            var limit = timeval(tv_sec: Self.hangLimit, tv_usec: 0)
            setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            var byte: UInt8 = 0
            while recv(conn, &byte, 1, 0) > 0 {}  // 0 when the client closes, -1 at the limit
        }
    }

    private func head(_ status: Int, _ headers: [(String, String)]) -> Data {
        var text = "HTTP/1.1 \(status) Status\r\nConnection: close\r\n"
        for (k, v) in headers { text += "\(k): \(v)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    private func send(_ conn: Int32, _ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(conn, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n <= 0 { return }
                offset += n
            }
        }
    }

    private func readRequest(_ conn: Int32) -> Request? {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            let n = recv(conn, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
        let range = buffer.range(of: separator)!
        let headText = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(buffer[range.upperBound...])
        let length = headers["content-length"].flatMap(Int.init) ?? 0
        while body.count < length {
            let n = recv(conn, &chunk, chunk.count, 0)
            if n <= 0 { break }
            body.append(contentsOf: chunk[0..<n])
        }
        return Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
    }
}

/// A loopback port that refuses connections: bound (so no other test can take it) but not
/// listening. Closing a server instead would free its port for the next test's server.
public final class RefusingPort: Sendable {
    public let port: Int
    private let fd: Int32

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        self.port = Int(UInt16(bigEndian: addr.sin_port))
        self.fd = fd
    }

    deinit { close(fd) }
}
