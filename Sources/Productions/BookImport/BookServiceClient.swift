import AsyncHTTPClient
import Foundation
import HTTPExchange
import Postgres

/// GETs from the book services through the shared PostgreSQL cache: a fresh cached answer is
/// returned without a request; a 200 or 404 is stored for the TTL the caller gives.
struct BookServiceClient: Sendable {
    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
        var cached: Bool
    }

    let settings: BookServiceSettings
    let postgres: PostgresClient
    let http: HTTPClient

    /// - Parameter http: must not follow redirects itself (``HTTPExchange`` follows them, by the
    ///   rules of each request); `HTTPClient.shared` is replaced by `HTTPExchange.client`.
    init(settings: BookServiceSettings, postgres: PostgresClient, http: HTTPClient = HTTPExchange.client) {
        self.settings = settings
        self.postgres = postgres
        self.http = http
    }

    /// The answer of `url`, from the cache when fresh. `cacheKey` names the question without
    /// secrets (the Google key is not part of it).
    func get(_ url: String, service: String, cacheKey: String, ttl: Double) async throws -> Answer {
        if let hit = try await postgres.withConnection({ try HTTPCacheRows.fresh(cacheKey, on: $0) }) {
            return Answer(status: hit.status, body: Array(hit.body), cached: true)
        }
        let (status, body) = try await fetch(url, service: service, limit: settings.maxResponseBytes)
        let data = Data(body)
        let redacted = redact(url)
        try await postgres.withConnection { connection in
            try HTTPCacheRows.store(cacheKey, url: redacted, status: status, body: data, ttl: ttl, on: connection)
        }
        return Answer(status: status, body: body, cached: false)
    }

    /// Reads the answer with `parse`; an answer it cannot read is dropped from the cache (a mirror's
    /// bad moment is not kept for days) and the error rethrown.
    func get<T>(_ url: String, service: String, cacheKey: String, ttl: Double,
                parse: ([UInt8]) throws -> T) async throws -> (value: T?, cached: Bool) {
        let answer = try await get(url, service: service, cacheKey: cacheKey, ttl: ttl)
        guard answer.status == 200 else { return (nil, answer.cached) }
        do {
            return (try parse(answer.body), answer.cached)
        } catch {
            try await postgres.withConnection { try HTTPCacheRows.forget(cacheKey, on: $0) }
            throw error
        }
    }

    /// One request, uncached: 200 and 404 come back; 429/503, other statuses, a cut-short body,
    /// a body over `limit`, a redirect `redirects` refuses and transport failures are ``BookServiceError``s.
    func fetch(_ url: String, service: String, limit: Int,
               redirects: HTTPExchange.Redirects = .standard) async throws -> (Int, [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: settings.userAgent)
        request.headers.add(name: "Accept", value: "application/json, image/*")
        let response: HTTPClientResponse
        do {
            response = try await HTTPExchange.execute(request, on: http, timeout: settings.timeout,
                                                      secret: settings.googleBooksKey, redirects: redirects)
        } catch {
            throw Self.error(error, service: service)
        }
        let status = Int(response.status.code)
        if status == 429 || status == 503 {
            throw BookServiceError.rateLimited(service: service, status: status,
                                               retryAfter: HTTPExchange.retryAfter(response.headers.first(name: "retry-after")))
        }
        if (500...599).contains(status) { throw BookServiceError.serverError(service: service, status: status) }
        guard status == 200 || status == 404 else { throw BookServiceError.rejected(service: service, status: status) }
        if let expected = response.headers.first(name: "content-length").flatMap(Int.init), expected > limit {
            throw BookServiceError.tooLarge(service: service, limit: limit)
        }
        let body: [UInt8]
        do { body = [UInt8](try await HTTPExchange.body(of: response, limit: limit)) } catch {
            throw Self.error(error, service: service)
        }
        return (status, body)
    }

    /// `url` without the Google Books key.
    func redact(_ text: String) -> String { HTTPExchange.redact(text, secret: settings.googleBooksKey) }

    static func error(_ failure: HTTPExchange.Failure, service: String) -> BookServiceError {
        switch failure {
        case .timeout: .timeout(service: service)
        case let .cutShort(expected, received): .truncated(service: service, expected: expected, received: received)
        case let .tooLarge(limit, _): .tooLarge(service: service, limit: limit)
        case let .unreachable(reason): .unreachable(service: service, reason: reason)
        case let .redirectRefused(target, reason): .refusedURL(service: service, url: target, reason: reason)
        }
    }
}
