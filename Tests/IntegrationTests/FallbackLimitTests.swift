import Foundation
import Generation
import RepartoRuntime
import Providers
import RepartoTestSupport
import Testing

/// A fallback chain's second provider is called under its own limit: the job is handed over to
/// `provider:NEXT` and admitted there, so that limit's rate, budget and concurrency count the call
/// (before, the whole attempt ran under the first provider's limit). Real PostgreSQL and RabbitMQ.
@Suite("fallback under the next provider's limit", .serialized, .timeLimit(.minutes(3)))
struct FallbackLimitTests {
    @Test func theSecondProvidersCallIsAdmittedAndChargedUnderItsOwnLimit() async throws {
        let cluster = try await TestCluster.make()
        let root = try GenerationJobTests.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let openAI = try GenerationJobTests.openAIStandIn()  // answers 11 + 3 tokens
        defer { openAI.stop() }
        let anthropic = try FakeHTTPServer { _ in
            ProviderStandIns.anthropicError(401, type: "authentication_error", message: "invalid x-api-key")
        }
        defer { anthropic.stop() }
        // Rates that refill one token an hour and budgets of 1,000 tokens an hour: what each
        // limit was charged stays visible while the test runs.
        for name in ["provider:anthropic", "provider:openai"] {
            try await cluster.client.setLimit(LimitSpec(name: name, rate: 1.0 / 3600, burst: 5, budget: 1_000, budgetWindow: 3_600))
        }
        let worker = cluster.startWorker(registry: GenerationJobTests.registry(root: root, cluster: cluster, openAI: openAI, anthropic: anthropic))

        let job = GenerateTextJob(providers: ["anthropic", "openai"], request: TextGenerationRequest(prompt: "A logline, please", maxTokens: 40))
        let id = try await cluster.client.enqueue(job)
        let done = try await cluster.client.awaitJob(id, timeout: 60)
        #expect(done.state == .succeeded, "\(done.lastError ?? "")")
        let result = try #require(try done.decodeResult(GenerateTextJob.Result.self))
        #expect(result.provider == "openai")
        #expect(result.failures.count == 1 && result.failures[0].hasPrefix("anthropic:"), "\(result.failures)")
        #expect(done.attempts == 1, "moving to the next provider's limit spends no attempt")

        let limits = Dictionary(uniqueKeysWithValues: try await cluster.client.limits().map { ($0.spec.name, $0.gate) })
        let first = try #require(limits["provider:anthropic"])
        let second = try #require(limits["provider:openai"])
        #expect(first.tokens < 4.5, "anthropic's call was admitted under its limit: \(first.tokens)")
        #expect(second.tokens < 4.5, "openai's call was admitted under openai's limit, not anthropic's: \(second.tokens)")
        #expect(second.budgetLeft < 1_000 - 13, "the 14 tokens openai counted are charged to openai's budget: \(second.budgetLeft)")
        #expect(first.budgetLeft > 1_000 - 2, "anthropic is charged its one admitted request, not openai's tokens: \(first.budgetLeft)")
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = $1 AND limit_key = 'provider:openai'", [id]) == 1)
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs WHERE id = $1 AND deferrals = 1", [id]) == 1)
        #expect(anthropic.requests.count == 1, "the first provider is asked once")

        try await worker.stop()
        await cluster.shutdown()
    }
}
