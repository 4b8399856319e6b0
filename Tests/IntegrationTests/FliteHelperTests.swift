import Foundation
import RepartoTestSupport
import Speech
import Testing

/// flite on `reparto speech-helper` processes, as `reparto run` speaks it.
@Suite("flite on speech helpers", .timeLimit(.minutes(2)))
struct FliteHelperTests {
    /// Lines of every voice at once on two helpers, mixed with espeak-ng lines: each comes back
    /// byte for byte as this process's own flite thread says it, at its own speed.
    @Test func helpersSpeakFliteLinesInParallelExactlyLikeTheLibrary() async throws {
        let pool = SpeechHelperPool(executable: RepartoProcess.executable, arguments: ["speech-helper"], size: 2)
        let pooled = FliteProvider(helpers: pool)
        let library = FliteProvider()
        let espeak = EspeakProvider(environment: [:], engine: .library, helpers: pool)
        let voices = FliteProvider.voices.map(\.id)
        let lines = (0..<10).map { (voice: voices[$0 % voices.count], text: "Line \($0) of the helper test.", speed: $0 < 5 ? 1.0 : 1.3) }
        let spoken = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for (index, line) in lines.enumerated() {
                group.addTask {
                    (index, try await pooled.synthesize(text: line.text, voice: line.voice, language: nil, options: .init(speed: line.speed)).data)
                }
                group.addTask {  // espeak-ng lines on the same helpers in between
                    (-1 - index, try await espeak.synthesize(text: line.text, voice: "en-us", language: nil, options: .standard).data)
                }
            }
            return try await group.reduce(into: [Int: Data]()) { $0[$1.0] = $1.1 }
        }
        #expect(spoken.count == 2 * lines.count)
        for (index, line) in lines.enumerated() {
            let reference = try await library.synthesize(text: line.text, voice: line.voice, language: nil, options: .init(speed: line.speed))
            let identical = spoken[index] == reference.data
            #expect(identical, "line \(index) (\(line.voice)) differs from the library's")
        }
        await #expect(throws: SpeechError.unknownVoice("zz", provider: "flite")) {
            try await pool.synthesize(EngineRequest(engine: .flite, text: "Hello.", voice: "zz", rate: 1000, pitch: 50))
        }
    }
}
