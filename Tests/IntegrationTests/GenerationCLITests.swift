import Foundation
import Generation
import RepartoRuntime
import Providers
import RepartoTestSupport
import Testing

/// `reparto generate`, `reparto usage` and `reparto providers` as subprocesses against a test
/// cluster, with an in-process worker and an OpenAI-compatible stand-in.
@Suite("generation CLI", .serialized, .timeLimit(.minutes(4)))
struct GenerationCLITests {
    /// The cluster's environment without any provider variable of the machine running the tests.
    static func environment(_ cluster: TestCluster, openAI: FakeHTTPServer?) throws -> [String: String] {
        var environment = try cluster.processEnvironment()
        for name in environment.keys where name.hasPrefix("OPENAI_") || name.hasPrefix("ANTHROPIC_") { environment[name] = nil }
        if let openAI { environment["OPENAI_BASE_URL"] = openAI.baseURL + "/v1" }
        return environment
    }

    @Test func generateTextWaitsAndUsageAndProvidersShowIt() async throws {
        let cluster = try await TestCluster.make()
        let root = try GenerationJobTests.temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let openAI = try GenerationJobTests.openAIStandIn()
        defer { openAI.stop() }
        let worker = cluster.startWorker(registry: GenerationJobTests.registry(root: root, cluster: cluster, openAI: openAI, anthropic: nil))
        let environment = try Self.environment(cluster, openAI: openAI)

        let text = try await RepartoProcess.run(["generate", "text", "Write a slug line", "--text-provider", "openai", "--wait",
                                                 "--production", "gen-cli", "--json"], environment: environment)
        #expect(text.status == 0, "\(text.stderr)")
        let result = try JSONDecoder().decode(GenerateTextJob.Result.self, from: Data(text.stdout.utf8))
        #expect(result.text == "Answer 1")
        #expect(result.provider == "openai")

        let embed = try await RepartoProcess.run(["generate", "embed", "one", "two", "--wait"], environment: environment)
        #expect(embed.status == 0, "\(embed.stderr)")
        #expect(embed.stdout.contains("2 embeddings of 3 dimensions from openai"), "\(embed.stdout)")

        var priced = environment
        priced["REPARTO_GENERATION_PRICES"] = "openai/llama3.2=in:1000000,out:2000000"
        let usage = try await RepartoProcess.run(["usage", "--production", "gen-cli", "--since", "1h", "--json"], environment: priced)
        #expect(usage.status == 0, "\(usage.stderr)")
        let lines = try JSONDecoder().decode([UsageSummary].self, from: Data(usage.stdout.utf8))
        #expect(lines.count == 1, "only the text job is in the production")
        #expect(lines.first?.capability == "text")
        #expect(lines.first?.inputTokens == 11)
        #expect(lines.first?.calls == 1)
        #expect(lines.first?.cost == 17, "11 input tokens at 1 per token, 3 output tokens at 2")
        let table = try await RepartoProcess.run(["usage"], environment: environment)
        #expect(table.stdout.contains("embedding") && table.stdout.contains("text"), "\(table.stdout)")

        let providers = try await RepartoProcess.run(["providers", "list", "--json"], environment: environment)
        #expect(providers.status == 0, "\(providers.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(providers.stdout.utf8)) as? [[String: Any]])
        let generationOpenAI = try #require(rows.first { $0["id"] as? String == "openai" && ($0["capabilities"] as? [String])?.contains("text") == true })
        #expect(generationOpenAI["configured"] as? Bool == true)
        #expect(rows.contains { ($0["capabilities"] as? [String]) == ["speech"] && $0["id"] as? String == "espeak-ng" })

        let disable = try await RepartoProcess.run(["providers", "disable", "anthropic"], environment: environment)
        #expect(disable.status == 0, "\(disable.stderr)")
        #expect(try await cluster.count("SELECT count(*) AS n FROM generation_providers WHERE id = 'anthropic' AND NOT enabled") == 1)
        // The old command still works (it lists what workers recorded; this test's worker records no speech provider).
        let old = try await RepartoProcess.run(["voices", "providers", "list", "--json"], environment: environment)
        #expect(old.status == 0, "\(old.stderr)")
        #expect((try? JSONSerialization.jsonObject(with: Data(old.stdout.utf8))) is [Any], "\(old.stdout)")

        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func withoutAProviderGenerateSaysWhatToSetAndEnqueuesNothing() async throws {
        let cluster = try await TestCluster.make()
        let environment = try Self.environment(cluster, openAI: nil)
        let output = try await RepartoProcess.run(["generate", "text", "hello"], environment: environment)
        #expect(output.status != 0)
        #expect(output.stderr.contains("OPENAI_BASE_URL=http://127.0.0.1:11434/v1"), "\(output.stderr)")
        #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
        #expect(try await cluster.count("SELECT count(*) AS n FROM jobs") == 0)
        await cluster.shutdown()
    }
}
