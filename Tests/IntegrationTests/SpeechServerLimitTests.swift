import Foundation
import RepartoRuntime
import Speech
import SpeechJobs
import Testing

/// An OpenAI-compatible speech server's concurrency is the limit `provider:openai`: a worker that
/// records its providers creates it from `OPENAI_TTS_CONCURRENCY` when no limit of that name
/// exists, and leaves an operator's own terms alone. Real PostgreSQL.
@Suite(.timeLimit(.minutes(2))) struct SpeechServerLimitTests {
    static func registry(concurrency: String) -> VoiceProviderRegistry {
        .standard(environment: ["PATH": "/usr/bin:/bin", "OPENAI_BASE_URL": "http://127.0.0.1:8880", "OPENAI_TTS_CONCURRENCY": concurrency])
    }

    @Test func theServersConcurrencyBecomesItsProvidersLimitUnlessOneExists() async throws {
        let cluster = try await TestCluster.make()
        let directory = VoiceProviderDirectory(postgres: cluster.postgres)
        func openAILimit() async throws -> LimitSpec? {
            try await cluster.client.limits().map(\.spec).first { $0.name == "provider:openai" }
        }

        try await directory.record(.standard(environment: ["PATH": "/usr/bin:/bin"]))
        #expect(try await openAILimit() == nil, "no concurrency set, no limit")

        try await directory.record(Self.registry(concurrency: "2"))
        #expect(try await openAILimit() == LimitSpec(name: "provider:openai", concurrency: 2))

        // Another worker with another default does not replace it, nor does an operator's limit get replaced.
        try await directory.record(Self.registry(concurrency: "5"))
        #expect(try await openAILimit()?.concurrency == 2)
        try await cluster.client.setLimit(LimitSpec(name: "provider:openai", rate: 3, concurrency: 1))
        try await directory.record(Self.registry(concurrency: "5"))
        #expect(try await openAILimit() == LimitSpec(name: "provider:openai", rate: 3, concurrency: 1))

        // A setting that cannot be read leaves the provider unconfigured, and creates nothing.
        try await cluster.client.deleteLimit("provider:openai")
        try await directory.record(Self.registry(concurrency: "lots"))
        #expect(try await openAILimit() == nil)
        await cluster.shutdown()
    }
}
