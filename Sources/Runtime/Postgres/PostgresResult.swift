import CLibPQ

/// The rows and command status of one statement, copied out of libpq's `PGresult` (which is freed
/// at once), so a result is a plain `Sendable` value.
public struct PostgresResult: Sendable, RandomAccessCollection {
    /// Column names, in order.
    public var columns: [String] { columnIndex.names }
    /// Rows inserted, updated, deleted, copied or selected, as reported by the server (`PQcmdTuples`);
    /// 0 for statements that report no count.
    public var rowsAffected: Int
    /// The command tag, e.g. `INSERT 0 1` or `SELECT 3`.
    public var commandTag: String

    let columnIndex: PostgresColumnIndex
    let values: [[String?]]

    init(columnIndex: PostgresColumnIndex, values: [[String?]], rowsAffected: Int, commandTag: String) {
        self.columnIndex = columnIndex
        self.values = values
        self.rowsAffected = rowsAffected
        self.commandTag = commandTag
    }

    /// An empty result.
    init() {
        self.init(columnIndex: PostgresColumnIndex(names: []), values: [], rowsAffected: 0, commandTag: "")
    }

    /// Copies everything out of a `PGresult` (does not free it).
    init(copying result: OpaquePointer) {
        let columnCount = Int(PQnfields(result))
        var names: [String] = []
        names.reserveCapacity(columnCount)
        for column in 0..<columnCount {
            names.append(PQfname(result, Int32(column)).map { String(cString: $0) } ?? "?column?")
        }
        let rowCount = Int(PQntuples(result))
        var rows: [[String?]] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var fields: [String?] = []
            fields.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) != 0 {
                    fields.append(nil)
                } else {
                    fields.append(String(cString: PQgetvalue(result, Int32(row), Int32(column))))
                }
            }
            rows.append(fields)
        }
        let tuples = PQcmdTuples(result).map { String(cString: $0) } ?? ""
        let tag = PQcmdStatus(result).map { String(cString: $0) } ?? ""
        self.init(
            columnIndex: PostgresColumnIndex(names: names), values: rows,
            rowsAffected: Int(tuples) ?? 0, commandTag: tag
        )
    }

    /// The index of the first row.
    public var startIndex: Int { values.startIndex }
    /// One past the index of the last row.
    public var endIndex: Int { values.endIndex }
    /// The row at `position`.
    public subscript(position: Int) -> PostgresRow {
        PostgresRow(columnIndex: columnIndex, values: values[position])
    }
}

/// Column names and a name → position lookup, shared by all rows of a result.
final class PostgresColumnIndex: Sendable {
    let names: [String]
    let positions: [String: Int]

    init(names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (index, name) in names.enumerated() where positions[name] == nil {
            positions[name] = index
        }
        self.positions = positions
    }
}
