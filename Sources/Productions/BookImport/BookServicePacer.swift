import BookCatalog
import Foundation
import Postgres
import RepartoRuntime
import Synchronization

/// What a request to a book service is spaced and held back with: each lane has a limit (its
/// budget sets the spacing) and a hold (a "slow down" answer holds the whole lane).
enum BookServiceLane: String, Sendable, CaseIterable {
    /// Open Library's API: `/api/books`, `/search.json`.
    case openLibrary = "openlibrary"
    /// Cover downloads (Open Library's covers, Google's thumbnails).
    case covers
    /// Google Books' API.
    case googleBooks = "google-books"

    /// The lane of a ``BookServiceClient`` service name.
    init(service: String) {
        self = Self(rawValue: service) ?? .openLibrary
    }

    /// The limit whose budget spaces the lane's requests.
    var limit: String {
        switch self {
        case .openLibrary: BookServiceSettings.openLibraryLimit
        case .covers: BookServiceSettings.coversLimit
        case .googleBooks: BookServiceSettings.googleBooksLimit
        }
    }

    /// How long a "slow down" without `Retry-After` holds the lane: the covers service's window
    /// for ISBN look-ups is 5 minutes; Google's per-minute quotas refill within one.
    var defaultHold: Double {
        switch self {
        case .openLibrary: BookServiceError.defaultRetryAfter
        case .covers: 300
        case .googleBooks: 60
        }
    }
}

/// Spaces the requests of every worker to a book service by the budget of its limit, and holds a
/// service back cluster-wide once it said to slow down, in PostgreSQL (`book_service_pace`).
///
/// A limit paces job *starts*; an enrich job asks about many books, one request after another, so
/// the job's limit alone would let each job burst. Each request therefore takes the lane's next
/// slot (one SQL statement: the slot moves on by the interval) and waits for it: the cluster's
/// requests to Open Library's API are at least `window / budget` seconds apart (1 s by default),
/// whatever the number of workers and jobs. A lane whose limit is absent, or has neither a
/// budget nor a rate, is not spaced (a mirror or a stand-in sets its own terms). A wait longer
/// than ``longestWait`` is not waited in the handler: the request fails as held, which the job
/// turns into "retry at".
///
/// The limits are read (and the public service's defaults created, see
/// ``BookServiceSettings/defaultLimits``) at most every ``refresh``.
final class BookServicePacer: Sendable {
    /// The longest a request waits for its slot inside a job.
    static let longestWait: Double = 30
    /// How often the limits are read again.
    static let refresh: Duration = .seconds(10)
    /// Slack on every interval (1 % and 5 ms), so that two requests a slot apart never arrive
    /// closer than the service counts them (the network delays one and not the other).
    static func padded(_ interval: Double) -> Double { interval * 1.01 + 0.005 }

    let postgres: PostgresClient
    /// Created when absent (``BookServiceSettings/defaultLimits``).
    let defaults: [LimitSpec]
    private let loaded = Mutex<(at: ContinuousClock.Instant, specs: [String: LimitSpec])?>(nil)

    init(postgres: PostgresClient, defaults: [LimitSpec]) {
        (self.postgres, self.defaults) = (postgres, defaults)
    }

    /// Seconds between two requests of a limit: `window / budget`, else `1 / rate`; nil when
    /// the limit says neither.
    static func interval(_ spec: LimitSpec?) -> Double? {
        guard let spec else { return nil }
        if let budget = spec.budget, let window = spec.budgetWindow, budget > 0, window > 0 { return padded(window / budget) }
        if let rate = spec.rate, rate > 0 { return padded(1 / rate) }
        return nil
    }

    /// The limits by name, read at most every ``refresh``; the defaults created when absent, and
    /// one that is our other default (the contact changed) replaced.
    func limits() async throws -> [String: LimitSpec] {
        if let cached = loaded.withLock({ $0 }), ContinuousClock.now - cached.at < Self.refresh { return cached.specs }
        let client = JobClient(postgres: postgres)
        var specs: [String: LimitSpec] = [:]
        for usage in try await client.limits() { specs[usage.spec.name] = usage.spec }
        for spec in defaults {
            if let current = specs[spec.name] {
                guard current != spec, BookServiceSettings.isDefault(current) else { continue }
                try await client.setLimit(spec)
            } else {
                _ = try await postgres.withTransaction { try JobClient.addLimitIfAbsent(spec, in: $0) }
            }
            specs[spec.name] = spec
        }
        let read = specs
        loaded.withLock { $0 = (ContinuousClock.now, read) }
        return read
    }

    /// Waits for the lane's next slot (`spaced`), or only checks the lane is not held.
    /// - Throws: ``BookServiceError/held(service:until:reason:)`` when the lane is held, or its
    ///   slot is further than ``longestWait`` away; database errors; `CancellationError`.
    func admit(_ lane: BookServiceLane, spaced: Bool = true) async throws {
        let interval = spaced ? Self.interval(try await limits()[lane.limit]) : nil
        let service = lane.rawValue
        let (held, reason, wait) = try await postgres.withConnection { connection -> (Double?, String?, Double) in
            guard let interval else {
                let row = try connection.query("""
                    SELECT extract(epoch FROM held_until - clock_timestamp())::float8 AS held, hold_reason FROM book_service_pace
                    WHERE service = $1 AND held_until > clock_timestamp()
                    """, [service]).first
                return (row?.double("held"), row?.string("hold_reason"), 0)
            }
            // The slot is taken only when the lane is not held; a held lane keeps its schedule.
            let row = try connection.query("""
                INSERT INTO book_service_pace AS p (service, next_at) VALUES ($1, clock_timestamp() + make_interval(secs => $2::float8))
                ON CONFLICT (service) DO UPDATE SET next_at = CASE
                    WHEN p.held_until > clock_timestamp() THEN p.next_at
                    ELSE greatest(p.next_at, clock_timestamp()) + make_interval(secs => $2::float8) END
                RETURNING extract(epoch FROM p.held_until - clock_timestamp())::float8 AS held, p.hold_reason,
                          extract(epoch FROM p.next_at - clock_timestamp())::float8 - $2::float8 AS wait
                """, [service, interval]).first
            return (row?.double("held"), row?.string("hold_reason"), row?.double("wait") ?? 0)
        }
        if let held, held > 0 {
            throw BookServiceError.held(service: service, until: Date().addingTimeInterval(held), reason: reason ?? "asked to slow down")
        }
        if wait > Self.longestWait {
            throw BookServiceError.held(service: service, until: Date().addingTimeInterval(wait),
                                        reason: "its requests are queued \(Int(wait)) s ahead")
        }
        if wait > 0.001 { try await Task.sleep(for: .seconds(wait)) }
    }

    /// Holds the lane back for `seconds` (a longer hold already there stays); returns when it ends.
    @discardableResult
    func hold(_ lane: BookServiceLane, seconds: Double, reason: String) async throws -> Date {
        let seconds = min(max(0, seconds.isFinite ? seconds : 86_400), 86_400)
        let left = try await postgres.withConnection { connection in
            try connection.query("""
                INSERT INTO book_service_pace AS p (service, next_at, held_until, hold_reason)
                VALUES ($1, clock_timestamp() + make_interval(secs => $2::float8), clock_timestamp() + make_interval(secs => $2::float8), $3)
                ON CONFLICT (service) DO UPDATE SET
                    held_until = greatest(coalesce(p.held_until, EXCLUDED.held_until), EXCLUDED.held_until),
                    hold_reason = CASE WHEN p.held_until > EXCLUDED.held_until THEN p.hold_reason ELSE EXCLUDED.hold_reason END,
                    next_at = greatest(p.next_at, EXCLUDED.held_until)
                RETURNING extract(epoch FROM held_until - clock_timestamp())::float8 AS seconds
                """, [lane.rawValue, seconds, reason]).first?.double("seconds")
        }
        return Date().addingTimeInterval(left ?? seconds)
    }

    /// When the lane's hold ends, or nil when it is not held.
    func heldUntil(_ lane: BookServiceLane) async throws -> Date? {
        let left = try await postgres.withConnection { connection in
            try connection.query("""
                SELECT extract(epoch FROM held_until - clock_timestamp())::float8 AS seconds FROM book_service_pace
                WHERE service = $1 AND held_until > clock_timestamp()
                """, [lane.rawValue]).first?.double("seconds")
        }
        return left.map { Date().addingTimeInterval($0) }
    }
}
