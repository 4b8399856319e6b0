import Foundation
@testable import Postgres
import Testing

/// Encoding rules that need no server.
@Suite(.timeLimit(.minutes(2))) struct PostgresEncodableTests {
    @Test func arrayLiteralsQuoteAndEscape() {
        let values: [String?] = ["a", "b\"c", "d\\e", nil, "", "NULL", "{x,y}"]
        #expect(values.postgresText == #"{"a","b\"c","d\\e",NULL,"","NULL","{x,y}"}"#)
        #expect([Int]().postgresText == "{}")
        #expect([[1, 2], [3, 4]].postgresText == #"{{"1","2"},{"3","4"}}"#)
        #expect([true, false].postgresText == #"{"t","f"}"#)
    }

    @Test func scalarsHaveTheDocumentedTextForm() throws {
        #expect(true.postgresText == "t")
        #expect(false.postgresText == "f")
        #expect(Int64.min.postgresText == "-9223372036854775808")
        #expect(Double.infinity.postgresText == "Infinity")
        #expect((-Double.infinity).postgresText == "-Infinity")
        #expect(Double.nan.postgresText == "NaN")
        #expect(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!.postgresText == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
        #expect(Data([0x00, 0xAB, 0xFF]).postgresText == "\\x00abff")
        #expect(String?.none.postgresText == nil)
        #expect(Optional("x").postgresText == "x")
        #expect(try PostgresJSON(encoding: ["b": 1, "a": 2]).postgresText == #"{"a":2,"b":1}"#)
    }

    /// The hand-written hex both ways agrees with Foundation's for every byte value in every
    /// position, and refuses what is no UUID.
    @Test func uuidsReadAndWriteAsFoundationDoes() {
        let samples = (0..<2_000).map { _ in UUID() } + (0...255).map { byte in
            UUID(uuid: (UInt8(byte), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(byte)))
        }
        for uuid in samples {
            let text = PostgresUUID.text(uuid)
            #expect(text == uuid.uuidString.lowercased())
            #expect(PostgresUUID.parse(text) == uuid)
            #expect(PostgresUUID.parse(uuid.uuidString) == uuid)
        }
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(PostgresUUID.parse("e621e1f8-c36c-495a-93fc-0c247a3e6e5f") == uuid)
        for bad in ["e621e1f8-c36c-495a-93fc-0c247a3e6e5g", "e621e1f8xc36c-495a-93fc-0c247a3e6e5f",
                    "e621e1f8-c36c-495a-93fc-0c247a3e6e5", "e621e1f8c36c495a93fc0c247a3e6e5f0000", "", "not a uuid",
                    "e621e1f8-c36c-495a-93fc-0c247a3e6e5f-", "é621e1f8-c36c-495a-93fc-0c247a3e6e5"] {
            #expect(PostgresUUID.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func datesFormatAsUTCWithMicroseconds() {
        let date = Date(timeIntervalSince1970: Double(1_795_316_400_123_456) / 1_000_000)
        #expect(date.postgresText == "2026-11-22 03:00:00.123456+00")
        #expect(Date(timeIntervalSince1970: -0.5).postgresText == "1969-12-31 23:59:59.500000+00")
        #expect(Date(timeIntervalSince1970: 951_782_400).postgresText == "2000-02-29 00:00:00.000000+00")
    }

    @Test func timestampsParseInAllServerForms() {
        let expected = Date(timeIntervalSince1970: Double(1_795_316_400_123_456) / 1_000_000)
        #expect(PostgresTimestamp.parse("2026-11-22 03:00:00.123456+00") == expected)
        #expect(PostgresTimestamp.parse("2026-11-22 03:00:00.123456+00:00") == expected)
        #expect(PostgresTimestamp.parse("2026-11-22T03:00:00.123456Z") == expected)
        #expect(PostgresTimestamp.parse("2026-11-22 05:30:00.123456+02:30") == expected)
        #expect(PostgresTimestamp.parse("2026-11-21 19:00:00.123456-08") == expected)
        #expect(PostgresTimestamp.parse("2026-11-22 03:00:00+00") == Date(timeIntervalSince1970: 1_795_316_400))
        #expect(PostgresTimestamp.parse("2026-11-22 03:00:00.5+00") == Date(timeIntervalSince1970: 1_795_316_400.5))
        #expect(PostgresTimestamp.parse("2026-11-22") == Date(timeIntervalSince1970: 1_795_305_600))
        #expect(PostgresTimestamp.parse("infinity") == .distantFuture)
        #expect(PostgresTimestamp.parse("yesterday") == nil)
        #expect(PostgresTimestamp.parse("2026-13-01 00:00:00+00") == nil)
        #expect(PostgresTimestamp.parse("2026-11-22 03:00:00+00 junk") == nil)
    }

    @Test func errorsClassifyConnectionLossAndUniqueViolations() {
        #expect(PostgresError(.query, sqlState: "23505", message: "dup").isUniqueViolation)
        #expect(!PostgresError(.query, sqlState: "23505", message: "dup").isConnectionLost)
        #expect(PostgresError(.query, sqlState: "57P01", message: "terminating").isConnectionLost)
        #expect(PostgresError(.query, sqlState: "08006", message: "failure").isConnectionLost)
        #expect(PostgresError(.closed, message: "closed").isConnectionLost)
        #expect(!PostgresError(.query, sqlState: "42601", message: "syntax").isConnectionLost)
        #expect(PostgresError(.query, sqlState: "23505", message: "duplicate key value violates unique constraint \"x\"").description
            == "PostgreSQL error 23505: duplicate key value violates unique constraint \"x\"")
    }
}
