import Assets
import Foundation
import Postgres

/// The SQL of the asset sweep: which rows name which files on the volume (as the production
/// types declare), and the content cache (`generated_content`).
enum AssetReferenceRows {
    /// Every path the declared references name.
    @available(*, noasync)
    static func named(by references: [AssetReferences], on connection: PostgresConnection) throws -> Set<String> {
        try union(of: references.compactMap(\.pathsSQL), column: "path", on: connection)
    }

    /// Every content key the declared references pin.
    @available(*, noasync)
    static func pinned(by references: [AssetReferences], on connection: PostgresConnection) throws -> Set<String> {
        try union(of: references.compactMap(\.pinnedKeysSQL), column: "content_key", on: connection)
    }

    /// The text values of `column` over every query's rows.
    @available(*, noasync)
    private static func union(of queries: [String], column: String, on connection: PostgresConnection) throws -> Set<String> {
        var values: Set<String> = []
        for sql in queries { values.formUnion(try connection.query(sql).compactMap { $0.string(column) }) }
        return values
    }

    /// The file each of `keys` (`<kind>:<digest>`) is recorded at.
    @available(*, noasync)
    static func contentFiles(_ keys: [String], on connection: PostgresConnection) throws -> [String: String] {
        var files: [String: String] = [:]
        for row in try connection.query("""
            SELECT content_key, file_path FROM generated_content WHERE content_key = ANY($1::text[]) AND file_path IS NOT NULL
            """, [keys]) {
            if let key = row.string("content_key"), let path = row.string("file_path") { files[key] = path }
        }
        return files
    }

    /// The cache entries running productions still use (as their types declare): not to be evicted under them.
    @available(*, noasync)
    static func keysInUse(by productions: [UUID], references: [AssetReferences], on connection: PostgresConnection) throws -> Set<String> {
        var keys: Set<String> = []
        for sql in references.compactMap(\.inUseKeysSQL) {
            keys.formUnion(try connection.query(sql, [productions]).compactMap { $0.string("content_key") })
        }
        return keys
    }

    /// Forgets one cache entry (its file goes in the same transaction); false when the row is gone.
    @available(*, noasync)
    static func forget(key: String, path: String, on connection: PostgresConnection) throws -> Bool {
        try connection.query("DELETE FROM generated_content WHERE content_key = $1 AND file_path = $2 RETURNING id",
                             [key, path]).count > 0
    }
}

