import Foundation
import Testing
@testable import Speech

/// Speech options from job parameters or cast files: refused at decode time out of range, and
/// clamped at every engine whatever a caller built in code (issue 24: speed 1e300 trapped in
/// `Int(...)`, 1e8 in `Int32(wordsPerMinute)` on the espeak thread).
@Suite(.timeLimit(.minutes(2))) struct SynthesisBoundsTests {
    private func decode(_ json: String) throws -> SynthesisOptions {
        try JSONDecoder().decode(SynthesisOptions.self, from: Data(json.utf8))
    }

    @Test(arguments: [#"{"speed":1e300}"#, #"{"speed":1e8}"#, #"{"speed":0}"#, #"{"speed":-1}"#, #"{"speed":4.01}"#,
                      #"{"pitch":100}"#, #"{"pitch":-1}"#, #"{"pitch":9223372036854775807}"#, #"{"pitch":1e308}"#,
                      #"{"volume":1e308}"#, #"{"volume":-0.5}"#, #"{"speed":"NaN"}"#])
    func outOfRangeOptionsAreRefusedAtTheirKey(json: String) throws {
        let error = try #require(throws: DecodingError.self) { try decode(json) }
        let key = try #require(json.split(separator: "\"").dropFirst().first)
        switch error {
        case .dataCorrupted(let context), .typeMismatch(_, let context):
            #expect(context.codingPath.map(\.stringValue) == [String(key)])
        default:
            Issue.record("unexpected \(error)")
        }
    }

    @Test func optionsInRangeDecodeAndRoundTrip() throws {
        let options = try decode(#"{"speed":4,"pitch":99,"volume":4,"style":"shouting"}"#)
        #expect(options == SynthesisOptions(speed: 4, pitch: 99, volume: 4, style: .shouting))
        #expect(try decode(String(decoding: JSONEncoder().encode(options), as: UTF8.self)) == options)
        #expect(try decode("{}") == .standard)
    }

    @Test func boundedValuesStayInTheEnginesRanges() {
        let wild = SynthesisOptions(speed: 1e300, pitch: .max, volume: .infinity)
        #expect(wild.boundedSpeed == 4)
        #expect(wild.boundedPitch == 99)
        #expect(wild.boundedVolume == 1)
        let low = SynthesisOptions(speed: -.infinity, pitch: .min, volume: -3)
        #expect(low.boundedSpeed == 1)
        #expect(low.boundedPitch == 0)
        #expect(low.boundedVolume == 0)
        #expect(SynthesisOptions(speed: .nan).boundedSpeed == 1)
        #expect(SynthesisOptions(speed: 1e-9).boundedSpeed == 0.1)
    }

    /// A delivery keeps a cast's extreme options inside what a `generate` job's parameters accept.
    @Test func aDeliveryStaysInTheAcceptedRanges() throws {
        let base = SynthesisOptions(speed: 4, pitch: .max, volume: 4)
        let shouted = Delivery(parenthetical: "(shouting)", style: .shouting).options(base)
        #expect(shouted.speed == 4)
        #expect(shouted.pitch == 99)
        #expect(shouted.volume == 4)
        let encoded = try JSONEncoder().encode(shouted)
        #expect(try JSONDecoder().decode(SynthesisOptions.self, from: encoded) == shouted)
    }

    @Test(arguments: [1e300, 1e8, -1e300, .infinity, .nan, 0])
    func espeakSpeaksWhateverTheSpeed(speed: Double) async throws {
        let audio = try await EspeakProvider().synthesize(
            text: "One two three.", voice: "en-us", language: nil,
            options: SynthesisOptions(speed: speed, pitch: .max, volume: 1e300))
        #expect(try PCMAudio(wav: audio.data).duration > 0.1)
    }

    @Test func espeakAsAProcessTakesClampedArguments() async throws {
        let audio = try await EspeakProvider(engine: .process).synthesize(
            text: "One two three.", voice: "en-us", language: nil, options: SynthesisOptions(speed: 1e8, pitch: .min, volume: -1))
        #expect(try PCMAudio(wav: audio.data).duration > 0.1)
    }

    @Test(arguments: [1e300, -1e300, .infinity, .nan])
    func fliteSpeaksWhateverTheSpeed(speed: Double) async throws {
        let audio = try await FliteProvider().synthesize(text: "One two three.", voice: "slt", language: nil,
                                                          options: SynthesisOptions(speed: speed, pitch: .max))
        #expect(try PCMAudio(wav: audio.data).duration > 0.1)
    }

    @Test func silenceAndGainOfAbsurdValuesStayFinite() {
        #expect(PCMAudio.silence(seconds: 1e300, sampleRate: 16_000, channels: 1).duration == 3600)
        #expect(PCMAudio.silence(seconds: -.infinity, sampleRate: 16_000, channels: 1).samples.isEmpty)
        #expect(PCMAudio.silence(seconds: .nan, sampleRate: 16_000, channels: 1).samples.isEmpty)
        let quiet = PCMAudio.silence(seconds: 0.01, sampleRate: 16_000, channels: 1).amplified(by: 1e300)
        #expect(quiet.samples.allSatisfy { $0 == 0 })
        let tone = PCMAudio(sampleRate: 16_000, channels: 1, samples: [0.1, -0.2, 0.05])
        #expect(tone.amplified(by: 1e300).samples.allSatisfy { $0.isFinite && abs($0) <= 1 })
    }

    @Test func aRetryAfterOfAnySizeDescribesWithoutTrapping() {
        #expect(SpeechError.rateLimited(provider: "p", retryAfter: 1e30).description.contains("retry after 1e+30 s"))
        #expect(SpeechError.rateLimited(provider: "p", retryAfter: 2.1).description.contains("retry after 3 s"))
    }
}
