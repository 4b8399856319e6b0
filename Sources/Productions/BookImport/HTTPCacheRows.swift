import Foundation
import Postgres

/// The SQL of `http_cache`: book-service answers shared by every worker until they expire.
enum HTTPCacheRows {
    /// A fresh entry's status and body.
    static func fresh(_ key: String, on connection: PostgresConnection) throws -> (status: Int, body: Data)? {
        guard let row = try connection.query(
            "SELECT status, body FROM http_cache WHERE cache_key = $1 AND expires_at > now()", [key]).first,
              let status = row.int("status"), let body = row.data("body") else { return nil }
        return (status, body)
    }

    static func forget(_ key: String, on connection: PostgresConnection) throws {
        try connection.query("DELETE FROM http_cache WHERE cache_key = $1", [key])
    }

    static func store(_ key: String, url: String, status: Int, body: Data, ttl: Double, on connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO http_cache (cache_key, url, status, body, expires_at)
            VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
            ON CONFLICT (cache_key) DO UPDATE SET url = $2, status = $3, body = $4, fetched_at = now(),
                expires_at = now() + make_interval(secs => $5)
            """, [key, url, status, body, ttl])
    }

    /// Entries and the bytes of their bodies.
    static func size(on connection: PostgresConnection) throws -> (entries: Int, bytes: Int64) {
        let row = try connection.query("SELECT count(*)::int AS n, coalesce(sum(octet_length(body)), 0)::int8 AS bytes FROM http_cache").first
        return (row?.int("n") ?? 0, row?.int64("bytes") ?? 0)
    }

    /// One batch, in its own short statement, of entries past their TTL or fetched longer than
    /// `maxAge` seconds ago (nil: no age limit), oldest first, skipping rows another transaction
    /// holds. Returns how many went (a dry run counts them all instead).
    static func pruneExpired(maxAge: Double?, batch: Int, dryRun: Bool, on connection: PostgresConnection) throws -> Int {
        let condition = "expires_at <= now() OR ($1::float8 IS NOT NULL AND fetched_at < now() - make_interval(secs => $1::float8))"
        if dryRun {
            return try connection.query("SELECT count(*)::int AS n FROM http_cache WHERE \(condition)", [maxAge]).first?.int("n") ?? 0
        }
        return try connection.query("""
            DELETE FROM http_cache WHERE cache_key IN (
                SELECT cache_key FROM http_cache WHERE \(condition) ORDER BY fetched_at LIMIT $2::int4 FOR UPDATE SKIP LOCKED)
            RETURNING cache_key
            """, [maxAge, Int32(clamping: batch)]).count
    }

    /// One batch of the oldest entries beyond the newest ones whose bodies fit in `maxBytes`
    /// (a dry run counts them all).
    static func evict(maxBytes: Int64, batch: Int, dryRun: Bool, on connection: PostgresConnection) throws -> Int {
        let beyond = """
            SELECT cache_key FROM (
                SELECT cache_key, fetched_at, sum(octet_length(body)) OVER (ORDER BY fetched_at DESC, cache_key) AS kept
                FROM http_cache) s
            WHERE kept > $1::int8
            """
        if dryRun {
            return try connection.query("SELECT count(*)::int AS n FROM (\(beyond)) b", [maxBytes]).first?.int("n") ?? 0
        }
        return try connection.query("""
            DELETE FROM http_cache WHERE cache_key IN (SELECT cache_key FROM (\(beyond)) b LIMIT $2::int4)
            RETURNING cache_key
            """, [maxBytes, Int32(clamping: batch)]).count
    }

    /// Prunes the whole cache by `policy`, in batches of `batch` rows (each its own statement).
    static func prune(_ policy: HTTPCachePolicy, batch: Int = 1_000, dryRun: Bool = false,
                      on connection: PostgresConnection) throws -> HTTPCachePruneReport {
        var report = HTTPCachePruneReport(dryRun: dryRun)
        let maxAge: Double? = policy.maxAge.isFinite ? policy.maxAge : nil
        if dryRun {
            report.expired = try pruneExpired(maxAge: maxAge, batch: batch, dryRun: true, on: connection)
        } else {
            while true {
                let removed = try pruneExpired(maxAge: maxAge, batch: batch, dryRun: false, on: connection)
                report.expired += removed
                if removed < batch { break }
            }
        }
        if let maxBytes = policy.maxBytes {
            if dryRun {
                report.evicted = try evict(maxBytes: maxBytes, batch: batch, dryRun: true, on: connection)
            } else {
                while true {
                    let removed = try evict(maxBytes: maxBytes, batch: batch, dryRun: false, on: connection)
                    report.evicted += removed
                    if removed < batch { break }
                }
            }
        }
        (report.entries, report.bytes) = try size(on: connection)
        return report
    }
}
