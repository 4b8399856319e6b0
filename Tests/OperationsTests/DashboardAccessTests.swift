import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Operations
import Postgres
import RepartoConfiguration
import Testing

/// The dashboard answers anyone on loopback; bound elsewhere it needs a token, and with one every
/// request without `Authorization: Bearer <token>` gets 401. No database: the page and the health
/// endpoints answer without one.
@Suite(.timeLimit(.minutes(2)))
struct DashboardAccessTests {
    static let token = Secret("dash-SECRET-token-42")

    @Test(arguments: ["127.0.0.1", "127.5.6.7", "localhost", "::1", "[::1]"])
    func loopbackNeedsNoToken(_ host: String) throws {
        #expect(DashboardAccess.isLoopback(host))
        #expect(try DashboardAccess.requiredToken(host: host, token: nil) == nil)
        #expect(try DashboardAccess.requiredToken(host: host, token: Self.token) == Self.token, "a token given is required anyway")
    }

    @Test(arguments: ["0.0.0.0", "::", "10.0.0.5", "192.168.1.2", "dashboard.example.com", "128.0.0.1", "::ffff:127.0.0.1"])
    func anyOtherAddressNeedsAToken(_ host: String) throws {
        #expect(!DashboardAccess.isLoopback(host))
        let error = #expect(throws: DashboardAccessError.tokenRequired(host: host)) {
            try DashboardAccess.requiredToken(host: host, token: nil)
        }
        let line = try #require(error?.description)
        #expect(line.contains("REPARTO_DASHBOARD_TOKEN") && line.contains("REPARTO_DASHBOARD_TOKEN_FILE") && line.contains(host))
        #expect(!line.contains("\n"))
        #expect(try DashboardAccess.requiredToken(host: host, token: Self.token) == Self.token)
    }

    @Test func theHeaderMustCarryExactlyTheToken() {
        let token = Self.token
        #expect(DashboardAccess.authorizes("Bearer \(token.value)", token: token))
        for header in [nil, "", "Bearer", "Bearer ", "bearer \(token.value)", "Bearer \(token.value)x", "Bearer \(token.value.dropLast())",
                       "Basic \(token.value)", "Bearer  \(token.value)", token.value] {
            #expect(!DashboardAccess.authorizes(header, token: token), "\(header ?? "nil")")
        }
    }

    func get(_ port: Int, _ path: String, authorization: String?) async throws -> (status: Int, body: String, challenge: String?) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, String(decoding: data, as: UTF8.self), http?.value(forHTTPHeaderField: "WWW-Authenticate"))
    }

    @Test func withATokenEveryRequestWithoutItGets401() async throws {
        let postgres = PostgresClient(configuration: PostgresConfiguration(host: "127.0.0.1", port: 1, user: "nobody", database: "none",
                                                                          connectTimeout: 1), maxConnections: 1)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "test.dashboard")
        logger.logLevel = .warning
        let app = DashboardServer.buildApplication(host: "127.0.0.1", port: 0, postgres: postgres, logger: logger, token: Self.token,
                                                   onListening: { continuation.yield($0) })
        let server = try await TestServer.start(app, ports: ports, portsContinuation: continuation)
        for path in ["/", "/healthz", "/readyz", "/metrics", "/api/overview", "/nope"] {
            for header in [nil, "Bearer wrong", "Basic \(Self.token.value)"] {
                let reply = try await get(server.port, path, authorization: header)
                #expect(reply.status == 401, "\(path) with \(header ?? "no header")")
                #expect(reply.challenge?.hasPrefix("Bearer") == true)
                #expect(!reply.body.contains(Self.token.value))
            }
        }
        let page = try await get(server.port, "/", authorization: "Bearer \(Self.token.value)")
        #expect(page.status == 200)
        #expect(page.body.contains("<html") || page.body.contains("<!DOCTYPE"))
        #expect(try await get(server.port, "/healthz", authorization: "Bearer \(Self.token.value)").status == 200)
        try await server.stop()
        await postgres.shutdown()
    }

    @Test func withoutATokenLoopbackAnswersEveryone() async throws {
        let postgres = PostgresClient(configuration: PostgresConfiguration(host: "127.0.0.1", port: 1, user: "nobody", database: "none",
                                                                          connectTimeout: 1), maxConnections: 1)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = DashboardServer.buildApplication(host: "127.0.0.1", port: 0, postgres: postgres, logger: Logger(label: "test.dashboard"),
                                                   onListening: { continuation.yield($0) })
        let server = try await TestServer.start(app, ports: ports, portsContinuation: continuation)
        #expect(try await get(server.port, "/healthz", authorization: nil).status == 200)
        try await server.stop()
        await postgres.shutdown()
    }
}
