import Foundation
import Postgres
@_spi(Testing) import RepartoRuntime

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

    /// The jobs inserted by this transaction (the runtime reads them: it owns the jobs table).
    func enqueued() throws -> [EnqueuedJob] {
        try JobRehearsal.inserted(on: connection).map {
            EnqueuedJob(id: $0.id, kind: $0.kind, queue: $0.queue, productionID: $0.productionID, stage: $0.stage, parameters: $0.parameters)
        }
    }
}
