import Speech
import Testing

@Suite(.timeLimit(.minutes(1))) struct VoicePreviewTests {
    @Test func aPlainVoiceIdNamesTheFile() {
        #expect(VoicePreview.defaultFileName(voice: "en-us") == "preview-en-us.wav")
        #expect(VoicePreview.defaultFileName(voice: "kal16") == "preview-kal16.wav")
    }

    @Test func charactersAFileNameShouldNotHaveBecomeDashes() {
        #expect(VoicePreview.defaultFileName(voice: "mb/mb-en1") == "preview-mb-mb-en1.wav")
        #expect(VoicePreview.defaultFileName(voice: "a b:c") == "preview-a-b-c.wav")
    }

    @Test func leadingAndTrailingDotsGoAndNothingLeftIsVoice() {
        #expect(VoicePreview.defaultFileName(voice: "..hidden.") == "preview-hidden.wav")
        #expect(VoicePreview.defaultFileName(voice: "...") == "preview-voice.wav")
        #expect(VoicePreview.defaultFileName(voice: "") == "preview-voice.wav")
    }

    @Test func aNamedProviderIsTakenAsNamed() async throws {
        let registry = VoiceProviderRegistry.standard(environment: [:])
        let provider = try await VoicePreview.provider(for: "anything", named: EspeakProvider.providerID, in: registry)
        #expect(provider.id == EspeakProvider.providerID)
    }

    @Test func aVoiceNoProviderListsFallsBackToTheDefault() async throws {
        let registry = VoiceProviderRegistry.standard(environment: [:])
        let provider = try await VoicePreview.provider(for: "no-such-voice-anywhere", named: nil, in: registry)
        #expect(provider.id == (try registry.configuredProvider()).id)
    }

    @Test func anUnknownNamedProviderIsRefused() async {
        let registry = VoiceProviderRegistry.standard(environment: [:])
        await #expect(throws: SpeechError.self) { _ = try await VoicePreview.provider(for: "x", named: "no-such-provider", in: registry) }
    }
}
