import SpeechJobs
import Foundation
import RepartoRuntime
import Testing
@testable import TableRead

/// The table read's job parameters and stored values, out of range: refused at decode time with
/// the field named, or clamped where a stored value is only shown.
@Suite(.timeLimit(.minutes(1))) struct HostileValueTests {
    private func parseError(_ json: String) -> JobError? {
        let registry = JobRegistry()
        registry.register(ParseJob.self) { _, _ in }
        do { try registry.definition(for: ParseJob.kind)?.validate(parameters: Data(json.utf8)); return nil } catch {
            return error as? JobError
        }
    }

    @Test(arguments: ["0", "-1", "1e308", "9223372036854775807", "268435457"])
    func parseMaxBytesOutOfRangeIsRefused(maxBytes: String) throws {
        let error = try #require(parseError(#"{"sourcePath":"a.fountain","maxBytes":\#(maxBytes)}"#))
        guard case .invalidParameter(let kind, let field, _) = error else {
            Issue.record("expected invalidParameter, got \(error)")
            return
        }
        #expect(kind == "table-read.parse")
        #expect(field == "maxBytes")
    }

    @Test func parseMaxBytesInRangeDecodes() {
        #expect(parseError(#"{"sourcePath":"a.fountain","maxBytes":268435456}"#) == nil)
        #expect(parseError(#"{"sourcePath":"a.fountain"}"#) == nil)
    }

    @Test func aGenerateItemWithAWildSpeedNamesItsPath() throws {
        let registry = JobRegistry()
        registry.register(SpeechJob.self) { _, _ in }
        let json = #"{"items":[{"text":"Hi.","voice":"en-us"},{"text":"Hi.","voice":"en-us","options":{"speed":1e300}}]}"#
        let error = try #require(throws: JobError.self) {
            try registry.definition(for: SpeechJob.kind)?.validate(parameters: Data(json.utf8))
        }
        guard case .invalidParameter(_, let field, let reason) = error else {
            Issue.record("expected invalidParameter, got \(error)")
            return
        }
        #expect(field == "items.[1].options.speed")
        #expect(reason.hasPrefix("must be between 0.1 and 4"))
    }

    /// A stored range whose first scene is after its last selects nothing instead of trapping in
    /// `first...last`.
    @Test func aReversedSceneRangeHoldsNothing() throws {
        let range = try JSONDecoder().decode(TableReadScope.SceneRange.self, from: Data(#"{"first":9,"last":2}"#.utf8))
        #expect(!range.contains(5))
        #expect(!range.contains(9))
        #expect(TableReadScope.SceneRange(first: 2, last: 9).contains(9))
    }

    @Test func durationsOfAnySizeAreShownWithoutTrapping() {
        #expect(WebVTT.timestamp(1e300) == WebVTT.timestamp(1e9))
        #expect(WebVTT.timestamp(.nan) == "00:00:00.000")
        #expect(WebVTT.timestamp(-.infinity) == "00:00:00.000")
        #expect(TableReadResults.clock(.infinity) == "0:00")
        #expect(TableReadResults.clock(-5) == "0:00")
        #expect(TableReadResults.clock(3661) == "1:01:01")
    }
}
