import Foundation
import Postgres

/// The transaction a tested job's effects ran in, open until the inspection returns (then
/// rolled back). Its connection is usable only inside the inspection.
public struct TestTransaction {
    /// The connection, inside the transaction (blocking calls: the inspection runs on its thread).
    public let connection: PostgresConnection

    /// The first column of the first row of `sql`, as an integer (0 when there is no row).
    public func count(_ sql: String, _ parameters: [any PostgresEncodable] = []) throws -> Int {
        let result = try connection.query(sql, parameters)
        guard let row = result.first, let column = result.columns.first else { return 0 }
        return row.int(column) ?? 0
    }

    /// The rows of `sql`.
    public func rows(_ sql: String, _ parameters: [any PostgresEncodable] = []) throws -> PostgresResult {
        try connection.query(sql, parameters)
    }

    /// The jobs inserted by this transaction: rows whose `xmin` is this transaction's id.
    func enqueued() throws -> [EnqueuedJob] {
        try connection.query("""
            SELECT id, kind, queue, production_id, stage, params::text AS params FROM jobs
            WHERE xmin::text::bigint = pg_current_xact_id()::text::bigint % 4294967296
            ORDER BY created_at, id
            """).compactMap { row in
                guard let id = row.string("id").flatMap(UUID.init(uuidString:)), let kind = row.string("kind") else { return nil }
                return EnqueuedJob(id: id, kind: kind, queue: row.string("queue") ?? "", productionID: row.string("production_id").flatMap(UUID.init(uuidString:)),
                                   stage: row.string("stage"), parameters: Data((row.string("params") ?? "{}").utf8))
            }
    }
}
