import Foundation
import Testing
@testable import RepartoRuntime

/// Job parameters out of their documented range fail decoding with a typed error that names the
/// field, so the job ends `dead` before its handler runs (a `Duration` of 1e21 s traps).
@Suite(.timeLimit(.minutes(1))) struct ParameterRangeTests {
    let registry = JobRegistry.withBuiltins()

    private func validate(_ kind: String, _ json: String) throws {
        try #require(registry.definition(for: kind)).validate(parameters: Data(json.utf8))
    }

    @Test(arguments: ["1e21", "1e308", "-1e308", "-5", "86400.5"])
    func sleepSecondsOutOfRangeAreRefusedNamingTheField(seconds: String) throws {
        let error = try #require(throws: JobError.self) { try validate("sleep", #"{"seconds":\#(seconds)}"#) }
        guard case .invalidParameter(let kind, let field, let reason) = error else {
            Issue.record("expected invalidParameter, got \(error)")
            return
        }
        #expect(kind == "sleep")
        #expect(field == "seconds")
        #expect(reason.hasPrefix("must be between 0 and 86400, not "))
        #expect(!error.isRetryable)
        #expect(error.description.contains("seconds: must be between 0 and 86400"))
    }

    @Test func sleepSecondsInRangeDecode() throws {
        try validate("sleep", #"{"seconds":0}"#)
        try validate("sleep", #"{"seconds":86400}"#)
    }

    /// JSON has no NaN or infinity: as strings they are a type mismatch, refused as before.
    @Test(arguments: [#""NaN""#, #""Infinity""#, #""-Infinity""#, "[]", "null"])
    func nonNumbersAreRefused(value: String) {
        #expect(throws: JobError.self) { try validate("sleep", #"{"seconds":\#(value)}"#) }
    }

    @Test func aNumberThatFitsNoIntNamesItsField() throws {
        let error = try #require(throws: JobError.self) { try validate("fail", #"{"succeedOnAttempt":1e308}"#) }
        guard case .invalidParameter(_, let field, _) = error else {
            Issue.record("expected invalidParameter, got \(error)")
            return
        }
        #expect(field == "succeedOnAttempt")
    }

    @Test func aSleepBuiltInCodeIsCheckedByItsHandlerToo() async throws {
        let request = try JobRequest(SleepJob(seconds: 1e21))
        #expect(throws: JobError.self) { try validate("sleep", String(decoding: request.parameters, as: UTF8.self)) }
    }

    struct Nested: JobParameters {
        static let kind = "test.nested"
        struct Inner: Codable, Sendable {
            var level: Int
            init(from decoder: any Decoder) throws {
                enum Keys: String, CodingKey { case level }
                level = try decoder.container(keyedBy: Keys.self).decode(Int.self, forKey: .level, in: 0...9)
            }
        }
        var items: [Inner]
        var rate: Double?
        enum CodingKeys: String, CodingKey { case items, rate }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            items = try container.decode([Inner].self, forKey: .items, count: 1...3)
            rate = try container.decodeIfPresent(Double.self, forKey: .rate, in: 0.5...2)
        }
    }

    @Test func theFieldIsTheWholeKeyPath() throws {
        let registry = JobRegistry()
        registry.register(Nested.self) { _, _ in }
        let definition = try #require(registry.definition(for: Nested.kind))
        func reason(_ json: String) -> JobError? {
            do { try definition.validate(parameters: Data(json.utf8)); return nil } catch { return error as? JobError }
        }
        #expect(reason(#"{"items":[{"level":1},{"level":99}]}"#)
                == .invalidParameter(kind: Nested.kind, field: "items.[1].level", reason: "must be between 0 and 9, not 99"))
        #expect(reason(#"{"items":[]}"#)
                == .invalidParameter(kind: Nested.kind, field: "items", reason: "must hold between 1 and 3 elements, not 0"))
        let million = "[" + Array(repeating: #"{"level":1}"#, count: 1_000_000).joined(separator: ",") + "]"
        #expect(reason(#"{"items":\#(million)}"#)
                == .invalidParameter(kind: Nested.kind, field: "items", reason: "must hold between 1 and 3 elements, not 1000000"))
        #expect(reason(#"{"items":[{"level":1}],"rate":1e308}"#)
                == .invalidParameter(kind: Nested.kind, field: "rate", reason: "must be between 0.5 and 2, not 1e+308"))
        #expect(reason(#"{"items":[{"level":1}],"rate":1}"#) == nil)
        #expect(reason(#"{"items":[{"level":1}]}"#) == nil)
    }
}
