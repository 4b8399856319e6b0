@testable import BookshelfScan
import Foundation
import Testing

/// The structured answer's checks: what is said back to the model when it does not validate.
@Suite(.timeLimit(.minutes(1)))
struct ShelfReadingTests {
    static func answer(_ json: String) throws(ShelfReadingError) -> [ShelfSpine] { try ShelfReading.spines(from: Data(json.utf8)) }

    @Test func aValidAnswerGivesTheSpinesInShelfOrder() throws {
        let spines = try Self.answer("""
            {"spines":[{"title":"Emma","author":"Jane Austen","confidence":0.9,"position":2},
                       {"title":"  Dune  ","author":null,"confidence":1,"position":1},
                       {"title":"Beloved","author":"","confidence":0,"position":3}]}
            """)
        #expect(spines.map(\.title) == ["Dune", "Emma", "Beloved"])
        #expect(spines.map(\.author) == [nil, "Jane Austen", nil])
    }

    @Test(arguments: [
        ("[]", "not a JSON object"),
        (#"{"books":[]}"#, "`spines` is missing"),
        (#"{"spines":[{"title":"","author":null,"confidence":0.5,"position":1}]}"#, "spines[0].title"),
        (#"{"spines":[{"title":"A","author":7,"confidence":0.5,"position":1}]}"#, "spines[0].author"),
        (#"{"spines":[{"title":"A","author":null,"confidence":1.5,"position":1}]}"#, "spines[0].confidence"),
        (#"{"spines":[{"title":"A","author":null,"confidence":"high","position":1}]}"#, "spines[0].confidence"),
        (#"{"spines":[{"title":"A","author":null,"confidence":0.5,"position":0}]}"#, "spines[0].position"),
        (#"{"spines":[{"title":"A","author":null,"confidence":0.5,"position":1.5}]}"#, "spines[0].position"),
        (#"{"spines":[{"title":"A","author":null,"confidence":0.5,"position":1e300}]}"#, "spines[0].position"),
        (#"{"spines":[{"title":"A","author":null,"confidence":0.5,"position":1},{"title":"B","author":null,"confidence":0.5,"position":1}]}"#,
         "position 1 is given twice"),
    ])
    func anAnswerThatDoesNotValidateSaysWhy(json: String, reason: String) {
        do {
            _ = try Self.answer(json)
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    @Test func tooManySpinesIsRefused() {
        let items = (1...(ShelfReading.maxSpines + 1)).map { #"{"title":"T\#($0)","author":null,"confidence":0.5,"position":\#($0)}"# }
        #expect(throws: ShelfReadingError.self) { try Self.answer(#"{"spines":[\#(items.joined(separator: ","))]}"#) }
    }

    @Test func theSchemaIsAStrictObject() throws {
        let schema = try #require(JSONSerialization.jsonObject(with: ShelfReading.schema) as? [String: Any])
        #expect(schema["additionalProperties"] as? Bool == false)
        #expect(schema["required"] as? [String] == ["spines"])
    }

    @Test func digitsReadForLettersAreRepairedAndOtherTitlesLeftAlone() {
        #expect(ShelfMatcher.repairedOCR("The Si1ent Harb0ur") == "The Silent Harbour")
        #expect(ShelfMatcher.repairedOCR("Catch-22") == nil)
        #expect(ShelfMatcher.repairedOCR("1984") == nil)
        #expect(ShelfMatcher.repairedOCR("Dune") == nil)
    }

    @Test func aReadingsKeyChangesWithTheImageTheModelAndThePrompt() {
        let key = ReadShelfJob.readKey(sha256: "aa", provider: "openai", model: "gpt-4o")
        #expect(key.hasPrefix("vision:"))
        #expect(key != ReadShelfJob.readKey(sha256: "ab", provider: "openai", model: "gpt-4o"))
        #expect(key != ReadShelfJob.readKey(sha256: "aa", provider: "openai", model: "gpt-4.1"))
        #expect(key != ReadShelfJob.readKey(sha256: "aa", provider: "anthropic", model: "gpt-4o"))
    }

    @Test func theBenchShelfHasItsMisreadsAndValidISBNs() {
        let shelf = ScanBenchFixtures.make(photos: 20, spines: 300, misread: 30)
        #expect(shelf.books.count == 300)
        #expect(shelf.photos.count == 20)
        #expect(shelf.photos.flatMap { $0 }.count == 300)
        #expect(shelf.photos.flatMap { $0 }.filter { $0.misread != nil }.count == 30)
        #expect(Set(shelf.books.map(\.isbn13)).count == 300)
        for book in shelf.books {
            let digits = book.isbn13.compactMap(\.wholeNumberValue)
            #expect(digits.count == 13)
            #expect(digits.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) } % 10 == 0)
        }
        #expect(ScanBenchFixtures.photo(ofWidth: ScanBenchFixtures.width(ofPhoto: 7)) == 7)
    }
}
