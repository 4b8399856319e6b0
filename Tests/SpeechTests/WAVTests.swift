import Foundation
import Testing
@testable import Speech

@Suite(.timeLimit(.minutes(2))) struct WAVTests {
    @Test func sineRoundTripDurationAndLevels() throws {
        let sine = Signals.sine(amplitude: 0.5, seconds: 1, sampleRate: 16000)
        let wav = sine.wavData()
        #expect(wav.count == 44 + 16000 * 2)
        let header = try WAVHeader(parsing: wav)
        #expect(header.format == .pcm16(sampleRate: 16000))
        #expect(header.duration == 1.0)
        let decoded = try PCMAudio(wav: wav)
        #expect(decoded.frameCount == 16000)
        #expect(abs(decoded.peakDBFS - 20 * log10(0.5)) < 0.01)       // -6.02 dBFS
        #expect(abs(decoded.rmsDBFS - 20 * log10(0.5 / 2.0.squareRoot())) < 0.02)  // -9.03 dBFS
        #expect(PCMAudio.silence(seconds: 0.5, sampleRate: 8000, channels: 1).peakDBFS == -.infinity)
    }

    /// The one-pass measurement of a generate job agrees with decoding the whole file.
    @Test(arguments: [(0.5, 1), (0.9, 2), (0.0, 1)])
    func levelsInOnePassMatchTheDecodedAudio(amplitude: Double, channels: Int) throws {
        var audio = Signals.sine(amplitude: amplitude, seconds: 0.7, sampleRate: 22050)
        if channels == 2 { audio = PCMAudio(sampleRate: 22050, channels: 2, samples: audio.samples.flatMap { [$0, $0 / 2] }) }
        for encoding in [WAVFormat.Encoding.integer, .float] {
            let wav = audio.wavData(encoding: encoding)
            let levels = try AudioLevels(wav: wav), decoded = try PCMAudio(wav: wav)
            #expect(levels.duration == decoded.duration)
            if amplitude == 0 {
                #expect(levels.peakDBFS == -.infinity && levels.rmsDBFS == -.infinity)
            } else {
                #expect(abs(levels.peakDBFS - decoded.peakDBFS) < 1e-6, "\(encoding)")
                #expect(abs(levels.rmsDBFS - decoded.rmsDBFS) < 1e-6, "\(encoding)")
            }
        }
        #expect(throws: WAVError.self) { try AudioLevels(wav: Data("RIFF not really".utf8)) }
    }

    @Test func readsOtherBitDepthsAndFloat() throws {
        // Full-scale positive, zero, half negative, in each encoding.
        let u8 = Signals.wav(tag: 1, channels: 1, rate: 8000, bits: 8, payload: Data([255, 128, 64]))
        let s24 = Signals.wav(tag: 1, channels: 1, rate: 8000, bits: 24, payload: Data([0xFF, 0xFF, 0x7F, 0, 0, 0, 0, 0, 0xC0]))
        let s32 = Signals.wav(tag: 1, channels: 1, rate: 8000, bits: 32, payload: Data([0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0xC0]))
        var f32 = Data()
        for v: Float in [0.25, 0, -0.5] { withUnsafeBytes(of: v.bitPattern.littleEndian) { f32.append(contentsOf: $0) } }
        let float = Signals.wav(tag: 3, channels: 1, rate: 8000, bits: 32, payload: f32)
        let extensible = Signals.wav(tag: 1, channels: 1, rate: 8000, bits: 32, payload: f32, extensibleSubformat: 3)

        #expect(try PCMAudio(wav: u8).samples == [127.0 / 128, 0, -0.5])
        let a24 = try PCMAudio(wav: s24).samples
        #expect(abs(a24[0] - 1) < 1e-6 && a24[1] == 0 && a24[2] == -0.5)
        #expect(try PCMAudio(wav: s32).samples == [0.5, 0, -0.5])
        #expect(try PCMAudio(wav: float).samples == [0.25, 0, -0.5])
        #expect(try PCMAudio(wav: extensible).samples == [0.25, 0, -0.5])
        #expect(try WAVHeader(parsing: extensible).format.encoding == .float)
    }

    @Test func rejectsGarbageAndUnsupportedFormats() {
        #expect(throws: WAVError.self) { try WAVHeader(parsing: Data("{\"error\":\"nope\"}".utf8)) }
        #expect(throws: WAVError.self) { try WAVHeader(parsing: Data()) }
        // ADPCM (tag 2) is a real WAV we do not read.
        #expect(throws: WAVError.unsupported("format tag 2 with 4 bits (only PCM and IEEE float)")) {
            try WAVHeader(parsing: Signals.wav(tag: 2, channels: 1, rate: 8000, bits: 4, payload: Data([1, 2])))
        }
        // A header promising more data than present is truncated…
        var truncated = Signals.sine(seconds: 0.1).wavData()
        truncated.removeLast(100)
        #expect(throws: WAVError.self) { try WAVHeader(parsing: truncated) }
    }

    @Test func acceptsStreamingPlaceholderSizesAndNormalizes() throws {
        var streaming = Signals.sine(seconds: 0.1, sampleRate: 22050).wavData()
        // espeak-ng --stdout writes 0x7ffff000 as the data size.
        streaming.replaceSubrange(40..<44, with: [0x00, 0xF0, 0xFF, 0x7F])
        let header = try WAVHeader(parsing: streaming)
        #expect(header.wasStreamingHeader)
        #expect(header.frameCount == 2205)
        let (fixed, fixedHeader) = try WAVWriter.normalized(streaming)
        #expect(!fixedHeader.wasStreamingHeader)
        #expect(try WAVHeader(parsing: fixed).dataLength == 4410)
        #expect(fixed.count == 44 + 4410)
    }

    /// The shapes real writers produce (``RealWorldWAV``): streaming placeholder sizes, LIST and
    /// fact chunks, odd-sized chunks with their pad byte, a chunk after the data.
    @Test(arguments: RealWorldWAV.all.map(\.name))
    func readsRealWorldShapes(_ name: String) throws {
        let fixture = try #require(RealWorldWAV.all.first { $0.name == name })
        let header = try WAVHeader(parsing: fixture.data)
        #expect(header.format.sampleRate == fixture.rate)
        #expect(header.frameCount == 4, "the four samples, not the placeholder size or a trailing chunk")
        #expect(header.wasStreamingHeader == (name == "OpenAI streamed" || name == "espeak-ng --stdout"))
        #expect(try PCMAudio(wav: fixture.data).samples == RealWorldWAV.expected)
        let levels = try AudioLevels(wav: fixture.data)
        #expect(levels.duration == 4.0 / Double(fixture.rate))

        // Normalized: real sizes. RIFF size = file length - 8; a plain 44-byte header for PCM
        // 16-bit holds 8 sample bytes at offset 44, with the data size (8) at offset 40.
        let (fixed, fixedHeader) = try WAVWriter.normalized(fixture.data)
        #expect(!fixedHeader.wasStreamingHeader)
        #expect(Int(fixed.le32(at: 4)) == fixed.count - 8)
        #expect(try PCMAudio(wav: fixed).samples == RealWorldWAV.expected)
        if header.format.bitsPerSample == 16 {
            #expect(fixed.count == 44 + 8)
            #expect(fixed.le32(at: 40) == 8)
            #expect(fixed.suffix(8) == RealWorldWAV.pcm)
        }
    }

    @Test func concatenationWithPausesAndResampling() throws {
        let a = Signals.sine(seconds: 1, sampleRate: 16000)
        let b = Signals.sine(seconds: 0.5, sampleRate: 16000)
        let joined = try PCMAudio.concatenate([a, b, a], pause: 0.25)
        #expect(joined.frameCount == 16000 + 4000 + 8000 + 4000 + 16000)
        #expect(joined.duration == 3.0)
        // The pause is real silence.
        #expect(joined.samples[16000..<20000].allSatisfy { $0 == 0 })

        let other = Signals.sine(seconds: 1, sampleRate: 8000)
        let mixed = try PCMAudio.concatenate([a, other], pause: 0)
        #expect(mixed.sampleRate == 16000)
        #expect(mixed.frameCount == 32000)
        #expect(abs(PCMAudio(sampleRate: 16000, channels: 1, samples: Array(mixed.samples[16000...])).peakDBFS - a.peakDBFS) < 0.1)

        #expect(throws: SpeechError.self) { try PCMAudio.concatenate([a, other], pause: 0, allowResampling: false) }
        #expect(throws: SpeechError.self) { try PCMAudio.concatenate([a, Signals.sine(channels: 2)], pause: 0) }
        #expect(try PCMAudio.concatenate([a, b], pauses: [1.0]).duration == 2.5)
    }
}
