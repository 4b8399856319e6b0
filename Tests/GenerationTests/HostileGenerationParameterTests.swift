import Foundation
import Generation
import RepartoRuntime
import Providers
import Testing

/// `generate-text`, `generate-image` and `embed` parameters that cannot be sent are refused when
/// they decode, with the field named: the job ends `dead` before any provider is asked.
@Suite(.timeLimit(.minutes(1))) struct HostileGenerationParameterTests {
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

    private func text(maxTokens: String = "100", temperature: String = "0.5", providers: String = #"["openai"]"#) -> String {
        #"{"providers":\#(providers),"request":{"messages":[{"role":"user","content":"hi"}],"maxTokens":\#(maxTokens),"temperature":\#(temperature)}}"#
    }

    @Test func textRequestsOutOfRangeAreRefused() {
        #expect(field(error(GenerateTextJob.self, text(maxTokens: "9223372036854775807"))) == "request")
        #expect(field(error(GenerateTextJob.self, text(maxTokens: "-1"))) == "request")
        // Foundation reports a number that fits no Int without its key: refused all the same.
        #expect(error(GenerateTextJob.self, text(maxTokens: "1e308")) != nil)
        #expect(field(error(GenerateTextJob.self, text(temperature: "1e308"))) == "request")
        #expect(field(error(GenerateTextJob.self, text(providers: "[]"))) == "providers")
        let many = "[" + Array(repeating: #""openai""#, count: 17).joined(separator: ",") + "]"
        #expect(field(error(GenerateTextJob.self, text(providers: many))) == "providers")
        #expect(error(GenerateTextJob.self, text()) == nil)
    }

    @Test func imageSizesOutOfRangeAreRefused() {
        let json = #"{"providers":["openai"],"request":{"prompt":"a cat","size":"99999999999999999999x1"}}"#
        #expect(field(error(GenerateImageJob.self, json)) == "request")
        #expect(error(GenerateImageJob.self, #"{"providers":["openai"],"request":{"prompt":"a cat","size":"512x512"}}"#) == nil)
    }

    @Test func embedTakesOneToTheMaximumOfTexts() {
        #expect(field(error(EmbedJob.self, #"{"providers":["openai"],"texts":[]}"#)) == "texts")
        let million = "[" + Array(repeating: #""x""#, count: 1_000_000).joined(separator: ",") + "]"
        #expect(field(error(EmbedJob.self, #"{"providers":["openai"],"texts":\#(million)}"#)) == "texts")
        #expect(error(EmbedJob.self, #"{"providers":["openai"],"texts":["a","b"]}"#) == nil)
    }
}
