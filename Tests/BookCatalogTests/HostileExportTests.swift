import Testing
@testable import BookCatalog

@Suite("Hostile exports", .timeLimit(.minutes(1)))
struct HostileExportTests {
    /// Every fixture with bytes changed, cut short and repeated: read or refused with a typed
    /// error, never a trap.
    @Test(arguments: [("goodreads_quirks", "csv"), ("goodreads_31_columns", "csv"), ("librarything_marc8", "tsv"),
                      ("librarything_2014", "csv"), ("librarything_export", "json"), ("storygraph_quirks", "csv")])
    func damagedFixturesNeverTrap(name: String, ext: String) throws {
        let original = try Fixture.bytes(name, extension: ext)
        var state: UInt64 = 0x2545F4914F6CDD1D
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let interesting: [UInt8] = [0x00, 0x09, 0x0A, 0x0D, 0x22, 0x27, 0x2C, 0x3D, 0x5B, 0x5D, 0x7B, 0x7D, 0xE2, 0xE9, 0xF0, 0xFF, 0xC3, 0x80]
        for round in 0..<300 {
            var bytes = original
            for _ in 0...(round % 8) {
                let index = next() % bytes.count
                bytes[index] = round % 3 == 0 ? interesting[next() % interesting.count] : UInt8(truncatingIfNeeded: next())
            }
            if round % 5 == 0 { bytes = Array(bytes.prefix(next() % bytes.count)) }
            if round % 7 == 0 { bytes += bytes.prefix(200) }
            _ = try? BookExport.read(bytes)
            _ = try? BookExport.read(bytes, format: .libraryThing)
        }
    }

    @Test func hugeCellsAndNumbers() throws {
        let digits = String(repeating: "9", count: 5000)
        let text = "Title,Authors,ISBN/UID,Read Status,Star Rating,Dates Read\n"
            + "A,B,\(digits),read,\(digits),\(String(repeating: "2023/01/02-", count: 2000))\n"
            + "C,D,\(digits)E+\(digits),read,1e309,\n"
        let export = try BookExport.read(Array(text.utf8))
        #expect(export.rows.count == 2)
        #expect(export.rows[0].user.rating == nil)
        #expect(export.rows[1].isbn == .invalid(digits + "E+" + digits))
        let json = #"{"1": {"title": "x", "rating": 1e308, "pages": "\#(digits)", "books_id": 1e300, "isbn": 12345678901234567890123}}"#
        let read = try BookExport.read(Array(json.utf8))
        #expect(read.rows.first?.user.rating == nil)
        #expect(read.rows.first?.pages == nil)
        #expect(read.rows.first?.sourceID == "1")
    }
}
