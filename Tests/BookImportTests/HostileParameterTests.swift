import Foundation
import RepartoRuntime
import Testing
@testable import BookImport

/// `books.parse` and `books.enrich` parameters out of range are refused when they decode, naming
/// the field; a service's Retry-After of any size is described without trapping.
@Suite(.timeLimit(.minutes(1))) struct HostileParameterTests {
    private func error<P: JobParameters>(_ type: P.Type, _ json: String) -> JobError? {
        let registry = JobRegistry()
        registry.register(type) { _, _ in }
        do { try registry.definition(for: P.kind)?.validate(parameters: Data(json.utf8)); return nil } catch {
            return error as? JobError
        }
    }

    private func field(_ error: JobError?) -> String? {
        if case .invalidParameter(_, let field, _)? = error { return field }
        return nil
    }

    @Test(arguments: ["0", "-1", "1e308", "9223372036854775807"])
    func parseMaxBytesOutOfRangeIsRefused(maxBytes: String) {
        let json = #"{"sourcePath":"a.csv","format":"goodreads","prune":false,"maxBytes":\#(maxBytes)}"#
        #expect(field(error(BookParseJob.self, json)) == "maxBytes")
    }

    @Test func parseParametersInRangeDecode() {
        #expect(error(BookParseJob.self, #"{"sourcePath":"a.csv","format":"goodreads","prune":true}"#) == nil)
        #expect(error(BookParseJob.self, #"{"sourcePath":"a.csv","format":"goodreads","prune":true,"maxBytes":1024}"#) == nil)
    }

    @Test func enrichTakesOneToAThousandBooks() {
        #expect(field(error(BookEnrichJob.self, #"{"bookIDs":[]}"#)) == "bookIDs")
        let ids = (0...BookEnrichJob.maximumBooks).map { _ in "\"\(UUID().uuidString)\"" }
        #expect(field(error(BookEnrichJob.self, #"{"bookIDs":[\#(ids.joined(separator: ","))]}"#)) == "bookIDs")
        #expect(error(BookEnrichJob.self, #"{"bookIDs":[\#(ids.dropFirst().joined(separator: ","))]}"#) == nil)
    }

    @Test func followUpPartsAreOneOrBothAndNothingElse() {
        let id = UUID().uuidString
        #expect(error(BookEnrichJob.self, #"{"bookIDs":["\#(id)"],"parts":["cover"]}"#) == nil)
        #expect(error(BookEnrichJob.self, #"{"bookIDs":["\#(id)"],"parts":null}"#) == nil)
        #expect(field(error(BookEnrichJob.self, #"{"bookIDs":["\#(id)"],"parts":[]}"#)) == "parts")
        #expect(field(error(BookEnrichJob.self, #"{"bookIDs":["\#(id)"],"parts":["cover","cover","cover"]}"#)) == "parts")
        #expect(error(BookEnrichJob.self, #"{"bookIDs":["\#(id)"],"parts":["everything"]}"#) != nil)
        let decoded = try? JSONDecoder().decode(BookEnrichJob.self, from: Data(#"{"bookIDs":["\#(id)"],"parts":["google-books"]}"#.utf8))
        #expect(decoded?.parts == [.googleBooks])
        #expect(error(HTTPCachePruneJob.self, #"{}"#) == nil)
        #expect(error(HTTPCachePruneJob.self, #"{"dryRun":"Infinity"}"#)?.description.contains("dryRun") == true)
    }

    @Test func batchSizesOfAnyValueStayInTheClientsRange() {
        let ids = (0..<250).map { _ in UUID() }
        #expect(BookImportPlan.batches(ids, size: .max).map(\.count) == [100, 100, 50])
        #expect(BookImportPlan.batches(ids, size: .min).count == 250)
    }

    @Test func aHugeRetryAfterIsDescribed() {
        let error = BookServiceError.rateLimited(service: "openlibrary", status: 429, retryAfter: 1e30)
        #expect(error.description.contains("retry after 1e+30 s"))
    }
}
