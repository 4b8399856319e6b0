import Foundation
import Generation
import Operations
import Testing

@Suite("Usage ledger as Prometheus counters", .timeLimit(.minutes(2)))
struct UsageMetricsTests {
    init() { RepartoMetrics.bootstrap() }

    @Test func ledgerLinesBecomeCountersPerProviderModelAndDirection() {
        let provider = "unit-\(UUID().uuidString.prefix(8).lowercased())"
        let job = UUID()
        UsageMetrics.record(UsageEntry(jobID: job, productionID: nil, provider: provider, model: "m1", capability: "text",
                                       inputTokens: 120, outputTokens: 30, characters: 400))
        UsageMetrics.record(UsageEntry(jobID: job, productionID: nil, provider: provider, model: "m1", capability: "text",
                                       inputTokens: 80, outputTokens: 20, characters: 300))
        UsageMetrics.record(UsageEntry(jobID: job, productionID: nil, provider: provider, model: "m1", capability: "text", reused: true))
        UsageMetrics.record(UsageEntry(jobID: job, productionID: nil, provider: provider, model: "img", capability: "image",
                                       characters: 10, images: 1))
        UsageMetrics.record(UsageEntry(jobID: job, productionID: nil, provider: provider, model: "en-us", capability: "speech",
                                       characters: 12, audioSeconds: 1.25))
        UsageMetrics.record(UsageEntry(jobID: job, productionID: nil, provider: provider, model: "en-us", capability: "speech",
                                       characters: 5, audioSeconds: 0.5))

        let text = RepartoMetrics.exposition()
        let m1 = "provider=\"\(provider)\",model=\"m1\""
        #expect(text.contains("# TYPE reparto_generation_tokens_total counter"))
        #expect(seriesValue("reparto_generation_tokens_total{\(m1),direction=\"input\"}", in: text) == 200)
        #expect(seriesValue("reparto_generation_tokens_total{\(m1),direction=\"output\"}", in: text) == 50)
        #expect(seriesValue("reparto_generation_calls_total{\(m1),capability=\"text\",reused=\"false\"}", in: text) == 2)
        #expect(seriesValue("reparto_generation_calls_total{\(m1),capability=\"text\",reused=\"true\"}", in: text) == 1)
        #expect(seriesValue("reparto_generation_characters_total{\(m1),capability=\"text\"}", in: text) == 700)
        #expect(seriesValue("reparto_generation_images_total{provider=\"\(provider)\",model=\"img\"}", in: text) == 1)
        #expect(seriesValue("reparto_generation_audio_seconds_total{provider=\"\(provider)\",model=\"en-us\"}", in: text) == 1.75)
        #expect(seriesValue("reparto_generation_tokens_total{provider=\"\(provider)\",model=\"en-us\",direction=\"input\"}", in: text) == nil,
                "no token series for speech")
    }
}
