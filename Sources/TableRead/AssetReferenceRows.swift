import Assets
import Foundation
import Postgres

/// The SQL of the asset sweep: which rows name which files on the volume.
enum AssetReferenceRows {
    /// What the table read's rows name: its documents' sources and each read's files.
    static let tableReads = AssetReferences(owner: "table read", pathsSQL: """
        SELECT source_path AS path FROM documents WHERE source_path IS NOT NULL
        UNION
        SELECT unnest(ARRAY[source_path, audio_path, subtitles_path, chapters_path, report_path]) FROM table_reads
        """)

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
        try TableReadRows.recordedAudio(keys, on: connection)
    }

    /// The content keys running table reads use: not to be evicted under them.
    @available(*, noasync)
    static func keysInUse(by productions: [UUID], on connection: PostgresConnection) throws -> Set<String> {
        Set(try connection.query("SELECT DISTINCT content_key FROM production_lines WHERE production_id = ANY($1::uuid[])",
                                 [productions]).compactMap { $0.string("content_key") })
    }

    /// Forgets one cache entry (its file goes in the same transaction); false when the row is gone.
    @available(*, noasync)
    static func forget(key: String, path: String, on connection: PostgresConnection) throws -> Bool {
        try connection.query("DELETE FROM generated_content WHERE content_key = $1 AND file_path = $2 RETURNING id",
                             [key, path]).count > 0
    }
}

/// The table read's declaration of what its rows name on the asset volume.
public enum TableReadAssets {
    public static let references = AssetReferenceRows.tableReads
}
