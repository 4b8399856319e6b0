import SpeechJobs
import Crypto
import Foundation
import Postgres
import Screenplay

/// Document ids derived from content, so equal bytes always get the same id.
public enum DocumentIdentity {
    /// A UUID built from the first 16 bytes of a SHA-256 digest, with the version (8, custom)
    /// and variant (RFC 4122) bits set.
    public static func id(fromSHA256 digest: [UInt8]) -> UUID {
        precondition(digest.count >= 16, "a SHA-256 digest has 32 bytes")
        var bytes = Array(digest.prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The id of the parse of bytes whose SHA-256 is `sha256Hex` by `parserVersion`: version 1
    /// (the first parser's rows) keeps the id of the bytes' digest; later versions hash the digest
    /// with the version, so each version's parse is a row of its own.
    public static func id(sha256Hex: String, digest: [UInt8], parserVersion: Int) -> UUID {
        if parserVersion <= 1 { return id(fromSHA256: digest) }
        return id(fromSHA256: Array(SHA256.hash(data: Data("reparto-parser-\(parserVersion):\(sha256Hex)".utf8))))
    }
}

/// Writes a parsed document's rows: one statement per table, whatever the number of elements.
enum DocumentRows {
    /// Stores `document` unless this parser version's parse of the same `sha256` exists, inside
    /// the job's completion transaction; returns what is stored (the existing document when reused).
    static func store(_ document: ScreenplayDocument, id: UUID, sourcePath: String, sha256: String,
                      productionID: UUID?, on connection: PostgresConnection) throws -> ParseJobResult {
        let version = ScreenplayReader.parserVersion
        let inserted = try connection.query("""
            INSERT INTO documents (id, source_path, source_sha256, format, element_count, production_id, parser_version, warnings)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            ON CONFLICT DO NOTHING
            RETURNING id
            """, [id, sourcePath, sha256, document.format.rawValue, document.elements.count, productionID, version,
                  try PostgresJSON(encoding: document.warnings)])
        guard inserted.first != nil else {
            let existing = try connection.query("""
                SELECT id, format, element_count, warnings::text AS warnings FROM documents
                WHERE source_sha256 = $1 AND parser_version = $2
                """, [sha256, version]).first
            let warnings = try existing?.json("warnings", as: [ParseWarning].self) ?? document.warnings
            return ParseJobResult(documentID: existing?.uuid("id") ?? id, reused: true,
                                  format: existing?.string("format") ?? document.format.rawValue,
                                  elementCount: existing?.int("element_count") ?? document.elements.count, sha256: sha256,
                                  warnings: warnings.isEmpty ? nil : warnings)
        }
        if !document.titlePage.isEmpty {
            let values = try document.titlePage.map { try PostgresJSON(encoding: $0.values) }
            try connection.query("""
                INSERT INTO document_title_page (document_id, position, key, "values")
                SELECT $1, t.position, t.key, ARRAY(SELECT jsonb_array_elements_text(t.v))
                FROM unnest($2::int[], $3::text[], $4::jsonb[]) AS t(position, key, v)
                """, [id, Array(document.titlePage.indices), document.titlePage.map(\.key), values])
        }
        let elements = document.elements
        if !elements.isEmpty {
            try connection.query("""
                INSERT INTO document_elements
                    (document_id, chapter_index, order_index, type, text, plain_text, level, scene_number, name, extension, dual)
                SELECT $1, e.chapter_index, e.order_index, e.type, e.text, e.plain_text, e.level, e.scene_number,
                       e.name, e.extension, e.dual
                FROM unnest($2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[],
                            $9::text[], $10::text[], $11::bool[])
                     AS e(chapter_index, order_index, type, text, plain_text, level, scene_number, name, extension, dual)
                """, [
                    id,
                    elements.map(\.chapterIndex),
                    elements.map(\.orderIndex),
                    elements.map(\.type.rawValue),
                    elements.map(\.text),
                    elements.map(\.plainText),
                    elements.map(\.level),
                    elements.map(\.sceneNumber),
                    elements.map(\.name),
                    elements.map(\.extension),
                    elements.map(\.dual),
                ])
        }
        return ParseJobResult(documentID: id, reused: false, format: document.format.rawValue,
                              elementCount: elements.count, sha256: sha256,
                              warnings: document.warnings.isEmpty ? nil : document.warnings)
    }
}

extension DocumentRows {
    /// Loads a stored document: title page and elements in (chapterIndex, orderIndex) order.
    /// Returns nil when no document has `id`.
    static func load(_ id: UUID, on connection: PostgresConnection) throws -> ScreenplayDocument? {
        guard let row = try connection.query("SELECT format, warnings::text AS warnings FROM documents WHERE id = $1",
                                             [id]).first else { return nil }
        let format = row.string("format").flatMap(DocumentFormat.init(rawValue:)) ?? .fountain
        let warnings = try row.json("warnings", as: [ParseWarning].self) ?? []
        let titlePage = try titlePage(id, on: connection)
        let elements = try connection.query("""
            SELECT chapter_index, order_index, type, text, level, scene_number, name, extension, dual
            FROM document_elements WHERE document_id = $1 ORDER BY chapter_index, order_index
            """, [id]).compactMap { row -> Element? in
                guard let type = row.string("type").flatMap(ElementType.init(rawValue:)) else { return nil }
                return Element(type: type, text: row.string("text") ?? "", chapterIndex: row.int("chapter_index") ?? 0,
                               orderIndex: row.int("order_index") ?? 0, level: row.int("level"),
                               sceneNumber: row.string("scene_number"), name: row.string("name"),
                               extension: row.string("extension"), dual: row.bool("dual"))
            }
        return ScreenplayDocument(format: format, titlePage: titlePage, elements: elements, warnings: warnings)
    }

    /// The title page of document `id`, in order.
    static func titlePage(_ id: UUID, on connection: PostgresConnection) throws -> [TitlePageEntry] {
        try connection.query("""
            SELECT key, to_jsonb("values")::text AS v FROM document_title_page WHERE document_id = $1 ORDER BY position
            """, [id]).map { row in
                TitlePageEntry(key: row.string("key") ?? "", values: try row.json("v", as: [String].self) ?? [])
            }
    }

    /// What the parser warned about when it read document `id` (empty when none or unknown).
    static func warnings(_ id: UUID, on connection: PostgresConnection) throws -> [ParseWarning] {
        try connection.query("SELECT warnings::text AS warnings FROM documents WHERE id = $1", [id]).first?
            .json("warnings", as: [ParseWarning].self) ?? []
    }
}
