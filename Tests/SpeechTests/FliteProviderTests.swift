import Foundation
import Testing
@testable import Speech

@Suite(.timeLimit(.minutes(3))) struct FliteProviderTests {
    let provider = FliteProvider()
    let line = "Isolde, the boat was due at nine. It is nearly ten, and the harbour is empty."

    @Test func listsItsFiveVoicesWithGenderAndLanguage() async throws {
        #expect(provider.isConfigured)
        let voices = try await provider.voices(language: nil)
        #expect(Set(voices.map(\.id)) == ["kal", "kal16", "slt", "rms", "awb"])
        #expect(voices.allSatisfy { $0.provider == "flite" })
        #expect(voices.filter { $0.gender == "female" }.map(\.id) == ["slt"])
        #expect(voices.filter { $0.gender == "male" }.count == 4)
        #expect(try await provider.voices(language: "en").count == 5)
        #expect(try await provider.voices(language: "en-us").count == 5)
        #expect(try await provider.voices(language: "de").isEmpty)
        #expect(voices.first { $0.id == "awb" }?.name.contains("Scottish") == true)
        // Registered with the standard providers, so casting and `reparto voices` find it.
        #expect(try VoiceProviderRegistry.standard(environment: [:]).provider("flite").id == "flite")
    }

    /// kal is flite's 8 kHz diphone voice; the others speak at 16 kHz.
    @Test(arguments: [("kal", 8000), ("kal16", 16000), ("slt", 16000), ("rms", 16000), ("awb", 16000)])
    func speaksAudibleMonoWAVAtTheVoicesRate(voice: String, rate: Int) async throws {
        let audio = try await provider.synthesize(text: line, voice: voice, language: nil, options: .standard)
        #expect(audio.mimeType == "audio/wav")
        let header = try WAVHeader(parsing: audio.data)
        #expect(header.format == WAVFormat.pcm16(sampleRate: rate))
        let levels = try AudioLevels(wav: audio.data)
        #expect(levels.duration > 2)  // fifteen words
        #expect(levels.rmsDBFS > -35)
        #expect(audio.duration == levels.duration)
    }

    @Test(arguments: ["kal", "slt"])
    func aFasterSpeedGivesShorterAudio(voice: String) async throws {
        let normal = try await provider.synthesize(text: line, voice: voice, language: nil, options: .standard)
        let fast = try await provider.synthesize(text: line, voice: voice, language: nil, options: .init(speed: 1.5))
        let ratio = try PCMAudio(wav: fast.data).duration / PCMAudio(wav: normal.data).duration
        #expect(ratio < 0.8 && ratio > 0.5, "fast/normal duration \(ratio)")
    }

    /// Speed and pitch go on each request's utterance, never on the process's shared voice: a
    /// default request after a slow, high one says exactly what it said before.
    @Test(arguments: ["kal16", "rms"])
    func requestSettingsDoNotLeakIntoTheNextRequest(voice: String) async throws {
        let before = try await provider.synthesize(text: line, voice: voice, language: nil, options: .standard)
        let altered = try await provider.synthesize(text: line, voice: voice, language: nil, options: .init(speed: 0.7, pitch: 90))
        let after = try await provider.synthesize(text: line, voice: voice, language: nil, options: .standard)
        #expect(altered.data != before.data)
        let same = after.data == before.data  // a Bool: Swift Testing would diff two large collections
        #expect(same)
        let neutral = try await provider.synthesize(text: line, voice: voice, language: nil, options: .init(pitch: 50))
        let neutralSame = neutral.data == before.data
        #expect(neutralSame, "pitch 50 is the voice's own")
    }

    @Test func pitchMovesTheVoicesMeanAroundItsOwn() throws {
        for id in ["kal", "slt", "awb"] {
            let voice = try #require(FliteVoices.registered[id])
            let own = FliteVoices.f0Mean(voice, pitch: 50)
            #expect(own > 60 && own < 300, "\(id): \(own) Hz")
            #expect(FliteVoices.f0Mean(voice, pitch: 99) > own * 1.3)
            #expect(FliteVoices.f0Mean(voice, pitch: 0) < own * 0.75)
            #expect(FliteVoices.f0Mean(voice, pitch: 150) == FliteVoices.f0Mean(voice, pitch: 99))
        }
        #expect(FliteProvider.durationStretch(speed: 1) == 1000)
        #expect(FliteProvider.durationStretch(speed: 2) == 500)
        #expect(FliteProvider.durationStretch(speed: .nan) == 1000)
        #expect(FliteProvider.durationStretch(speed: 100) == 250)
    }

    @Test(arguments: ["klingon", "KAL", "cmu_us_slt", ""])
    func unknownVoicesAreTyped(voice: String) async {
        await #expect(throws: SpeechError.unknownVoice(voice, provider: "flite")) {
            try await provider.synthesize(text: "hi", voice: voice, language: nil, options: .standard)
        }
        await #expect(throws: SpeechError.unknownVoice(voice, provider: "flite")) {
            try await FliteLibrary.shared.synthesize(EngineRequest(engine: .flite, text: "hi", voice: voice, rate: 1000, pitch: 50))
        }
    }

    @Test func emptyTextIsTyped() async {
        await #expect(throws: SpeechError.emptyText) {
            try await provider.synthesize(text: "  \n", voice: "slt", language: nil, options: .standard)
        }
    }

    /// Many requests at once, of every voice and twice each: all are spoken, and a request gives
    /// the same bytes every time (the clustergen voices' noise is seeded per synthesis).
    @Test func concurrentRequestsAllSucceedAndRepeatByteForByte() async throws {
        let voices = FliteProvider.voices.map(\.id)
        let requests = (0..<20).map { index in (voice: voices[index % voices.count], text: "Line \(index % 10): we leave at dawn.") }
        let spoken = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask {
                    (index, try await provider.synthesize(text: request.text, voice: request.voice, language: nil, options: .standard).data)
                }
            }
            return try await group.reduce(into: [Int: Data]()) { $0[$1.0] = $1.1 }
        }
        #expect(spoken.count == requests.count)
        for index in 0..<10 {
            // Requests index and index + 10 have the same voice (5 voices) and the same text.
            let identical = spoken[index] == spoken[index + 10]
            #expect(identical, "request \(index) (\(requests[index].voice)) differs from its repeat")
            #expect((spoken[index]?.count ?? 0) > 10_000)
        }
    }

    @Test func textWithNULAndTypographyIsSpokenWhole() async throws {
        let plain = try await provider.synthesize(text: "Wait for me. Please wait.", voice: "kal16", language: nil, options: .standard)
        let withNUL = try await provider.synthesize(text: "Wait for me.\0Please wait.", voice: "kal16", language: nil, options: .standard)
        #expect(try PCMAudio(wav: withNUL.data).duration > 0.8 * PCMAudio(wav: plain.data).duration)
        let typographic = try await provider.synthesize(text: "It’s “fine” — naïve café…", voice: "slt", language: nil, options: .standard)
        #expect(try PCMAudio(wav: typographic.data).duration > 0.5)
    }
}
