import Testing
@testable import Generation

/// Where a chain starts for a job handed over to a later provider's limit, and when a failure
/// hands it over: pure, no server.
@Suite(.timeLimit(.minutes(1))) struct ProviderChainRunnerTests {
    @Test func aJobAdmittedUnderALaterProvidersLimitStartsThere() {
        let chain = ["anthropic", "openai"]
        #expect(ProviderChainRunner.start(of: chain, limitKey: "provider:anthropic") == 0)
        #expect(ProviderChainRunner.start(of: chain, limitKey: "provider:openai") == 1)
        #expect(ProviderChainRunner.start(of: chain, limitKey: nil) == 0)
        #expect(ProviderChainRunner.start(of: chain, limitKey: "slow-lane") == 0, "a limit of no provider starts at the first")
    }

    @Test func movingOnHandsTheJobToTheNextProvidersLimit() {
        let chain = ["anthropic", "openai", "openai"]
        #expect(ProviderChainRunner.handOver(chain: chain, after: 0, limitKey: "provider:anthropic") == "provider:openai")
        #expect(ProviderChainRunner.handOver(chain: chain, after: 1, limitKey: "provider:openai") == nil, "the same provider again: same limit")
        #expect(ProviderChainRunner.handOver(chain: chain, after: 2, limitKey: "provider:openai") == nil, "nothing after the last")
        #expect(ProviderChainRunner.handOver(chain: chain, after: 0, limitKey: "slow-lane") == nil,
                "a job under a limit of its own keeps it")
        #expect(ProviderChainRunner.handOver(chain: chain, after: 0, limitKey: nil) == nil)
    }

    @Test func chainJobsRunUnderTheirFirstProvidersLimit() {
        #expect(GenerateTextJob(providers: ["anthropic", "openai"], request: .init(prompt: "x")).limitKey == "provider:anthropic")
        #expect(GenerateImageJob(providers: ["openai"], request: .init(prompt: "x")).limitKey == "provider:openai")
        #expect(EmbedJob(providers: [], texts: ["x"]).limitKey == nil)
    }

    @Test func skippedProvidersKeepTheReasonsTheHandOverRecorded() {
        let reason = "anthropic: provider anthropic refused the API key (HTTP 401)\nopenai: provider openai is disabled"
        #expect(ProviderChainRunner.earlierFailures(["anthropic", "openai"], previousError: reason, limitKey: "provider:x")
                == ["anthropic: provider anthropic refused the API key (HTTP 401)", "openai: provider openai is disabled"])
        #expect(ProviderChainRunner.earlierFailures(["anthropic"], previousError: "timed out after 600 s", limitKey: "provider:openai")
                == ["anthropic: failed before the job moved on to provider:openai"])
    }
}
