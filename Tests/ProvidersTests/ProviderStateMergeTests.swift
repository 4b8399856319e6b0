import Foundation
import Testing
@testable import Providers

/// One entry per provider id from the recorded rows and this process's view: pure, no server.
@Suite(.timeLimit(.minutes(1))) struct ProviderStateMergeTests {
    typealias Part = ProviderState.Part

    @Test func anIDThatSpeaksAndGeneratesIsOneEntry() throws {
        let local: [(id: String, part: Part)] = [
            ("openai", Part(name: "OpenAI", capabilities: ["text", "embedding", "image"], models: ["text": "gpt-4o-mini"],
                            enabled: true, configured: true, recorded: false)),
            ("openai", Part(name: "OpenAI speech", capabilities: ["speech"], enabled: true, configured: false, recorded: false)),
            ("espeak-ng", Part(name: "eSpeak NG", capabilities: ["speech"], enabled: true, configured: true, recorded: false)),
        ]
        let recorded: [(id: String, part: Part)] = [
            ("openai", Part(name: "OpenAI speech", capabilities: ["speech"], enabled: false, configured: false, recorded: true)),
            ("elevenlabs", Part(name: "ElevenLabs", capabilities: ["speech"], enabled: true, configured: true, recorded: true)),
        ]
        let states = ProviderState.merge(recorded: recorded, local: local)
        #expect(states.map(\.id) == ["elevenlabs", "espeak-ng", "openai"])
        let openAI = try #require(states.last)
        #expect(openAI.capabilities == ["speech", "text", "embedding", "image"])
        #expect(openAI.parts.count == 2)
        #expect(openAI.parts.first?.name == "OpenAI", "the generation part names the entry")
        #expect(openAI.speech?.recorded == true, "a worker's record replaces this process's view")
        #expect(!openAI.enabled, "the speech part is switched off")
        #expect(openAI.configured)
        #expect(openAI.unconfigured == ["speech"])
        #expect(openAI.models == ["text": "gpt-4o-mini"])
        #expect(states.first?.parts.first?.recorded == true, "another worker's provider stays")
    }
}
