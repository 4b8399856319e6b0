import SpeechJobs
import Foundation
import RepartoRuntime
import Speech
import Testing
@testable import TableRead

/// How `generate` jobs meet the runtime's limits, without a server.
@Suite("generate jobs under provider limits", .timeLimit(.minutes(1)))
struct GenerateJobLimitTests {
    @Test func aJobOfOneProviderRunsUnderThatProvidersLimit() throws {
        let espeak = SpeechJob(items: [.init(text: "Hi.", voice: "en-us"), .init(text: "Yo.", voice: "en-us+Alicia")])
        #expect(espeak.limitKey == "provider:\(EspeakProvider.providerID)")
        let mixed = SpeechJob(items: [.init(text: "Hi.", voice: "en-us"), .init(text: "Yo.", voice: "v1", provider: "elevenlabs")])
        #expect(mixed.limitKey == nil, "a job of two providers is under neither one's limit")
        let request = try JobRequest(SpeechJob(items: [.init(text: "Hi.", voice: "v1", provider: "elevenlabs")]))
        #expect(request.options.limit == "provider:elevenlabs", "the producer's request carries it")
        let chosen = try JobRequest(espeak, options: JobOptions(limit: "mine"))
        #expect(chosen.options.limit == "mine", "an explicit limit wins")
    }

    @Test func aProviders429WithRetryAfterBecomesRetryAtAndOtherErrorsStay() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let mapped = SpeechJob.jobError(for: .rateLimited(provider: "openai", retryAfter: 20), now: now)
        #expect((mapped as? JobError)?.retryAt == now.addingTimeInterval(20))
        #expect("\(mapped)".contains("openai"))
        let noHint = SpeechJob.jobError(for: .rateLimited(provider: "openai", retryAfter: nil), now: now)
        #expect(noHint as? SpeechError == .rateLimited(provider: "openai", retryAfter: nil), "without Retry-After: an ordinary retry")
        let other = SpeechJob.jobError(for: .timeout(provider: "openai"), now: now)
        #expect(other as? SpeechError == .timeout(provider: "openai"))
    }
}
