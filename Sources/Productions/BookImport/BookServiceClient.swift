import AsyncHTTPClient
import BookCatalog
import Foundation
import HTTPExchange
import Postgres

/// GETs from the book services through the shared PostgreSQL cache: a fresh cached answer is
/// returned without a request; a 200 or 404 is stored for the TTL the caller gives. Every request
/// that goes out is spaced and held back with its service's lane (``BookServicePacer``).
struct BookServiceClient: Sendable {
    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
        var cached: Bool
    }

    let settings: BookServiceSettings
    let postgres: PostgresClient
    let http: HTTPClient
    let pacer: BookServicePacer

    /// - Parameter http: must not follow redirects itself (``HTTPExchange`` follows them, by the
    ///   rules of each request); `HTTPClient.shared` is replaced by `HTTPExchange.client`.
    init(settings: BookServiceSettings, postgres: PostgresClient, http: HTTPClient = HTTPExchange.client) {
        self.settings = settings
        self.postgres = postgres
        self.http = http
        pacer = BookServicePacer(postgres: postgres, defaults: settings.defaultLimits)
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

    /// One request, uncached, after its lane admits it (``BookServicePacer/admit(_:spaced:)``):
    /// 200 and 404 come back; a "slow down" (``slowDown(status:service:retryAfter:body:)``) holds
    /// the lane and is ``BookServiceError/rateLimited(service:status:retryAfter:)``; other
    /// statuses, a cut-short body, a body over `limit`, a redirect `redirects` refuses and
    /// transport failures are ``BookServiceError``s. A cover fetched by its id is not spaced
    /// (Open Library does not limit those), only checked against the lane's hold.
    func fetch(_ url: String, service: String, limit: Int,
               redirects: HTTPExchange.Redirects = .standard) async throws -> (Int, [UInt8]) {
        let lane = BookServiceLane(service: service)
        try await pacer.admit(lane, spaced: lane != .covers || !Self.isCoverByID(url))
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
        if status == 403 || status == 429 || status == 503 {
            // Read what the service says (Google names its quota in the body), a little of it.
            let body = [UInt8]((try? await HTTPExchange.body(of: response, limit: 64 << 10)) ?? Data())
            let retryAfter = HTTPExchange.retryAfter(response.headers.first(name: "retry-after"))
            if let wait = Self.slowDown(status: status, service: service, retryAfter: retryAfter, body: body) {
                try await pacer.hold(lane, seconds: wait.seconds, reason: "HTTP \(status): \(wait.reason)")
                throw BookServiceError.rateLimited(service: service, status: status, retryAfter: retryAfter ?? wait.seconds)
            }
            throw BookServiceError.rejected(service: service, status: status)  // a 403 waiting does not cure
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

    /// Whether an answer asks to slow down, and for how long: a 429 or 503 from any service; a
    /// 403 from the covers service (Open Library answers 403 once covers looked up by ISBN pass
    /// 100 in 5 minutes); a 403 or 429 from Google Books naming a quota (a daily quota until
    /// midnight Pacific time, when Google resets it). Nil for a refusal waiting does not cure.
    static func slowDown(status: Int, service: String, retryAfter: Double?, body: [UInt8],
                         now: Date = Date()) -> (seconds: Double, reason: String)? {
        let lane = BookServiceLane(service: service)
        switch (lane, status) {
        case (.googleBooks, 403), (.googleBooks, 429):
            guard let quota = GoogleBooksResponse.quotaError(body) else {
                return status == 429 ? (retryAfter ?? lane.defaultHold, "too many requests") : nil
            }
            if quota.daily { return (max(retryAfter ?? 0, secondsUntilPacificMidnight(after: now)), "daily quota (\(quota.reason))") }
            return (retryAfter ?? lane.defaultHold, "quota (\(quota.reason))")
        case (.covers, 403): return (retryAfter ?? lane.defaultHold, "covers refused: Open Library's cover limit")
        case (_, 429): return (retryAfter ?? lane.defaultHold, "too many requests")
        case (_, 503): return (retryAfter ?? lane.defaultHold, "service unavailable")
        default: return nil
        }
    }

    /// Seconds until the next midnight in America/Los_Angeles (Google's quotas reset then).
    static func secondsUntilPacificMidnight(after now: Date) -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/Los_Angeles") ?? TimeZone(secondsFromGMT: -8 * 3600) ?? .gmt
        let start = calendar.startOfDay(for: now)
        let next = calendar.date(byAdding: .day, value: 1, to: start) ?? now.addingTimeInterval(86_400)
        return max(60, next.timeIntervalSince(now))
    }

    /// A cover named by its Open Library id (`/b/id/…`), which is not limited like ISBN look-ups.
    static func isCoverByID(_ url: String) -> Bool {
        OpenLibraryResponse.coverID(in: url) != nil && !OpenLibraryResponse.isKeyedCover(url)
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
