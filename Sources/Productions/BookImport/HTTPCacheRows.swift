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
}
