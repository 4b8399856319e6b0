import Foundation
import Testing
import Speech

/// ``AudioDefect``: what the table-read report flags in a line's audio.
@Suite("audio defects", .timeLimit(.minutes(1)))
struct AudioDefectTests {
    func pcm16(_ samples: [Int16]) -> Data {
        var data = Data()
        for sample in samples { withUnsafeBytes(of: sample.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    func sine(amplitude: Double, count: Int = 4000) -> [Int16] {
        (0..<count).map { Int16(clamping: Int((sin(Double($0) * 0.05) * amplitude * 32767).rounded())) }
    }

    @Test func speechLevelsAreNotFlagged() {
        #expect(AudioDefect.detect(pcm16: pcm16(sine(amplitude: 0.5))).isEmpty)
        #expect(AudioDefect.detect(pcm16: pcm16([0, 32767, 0, -32768, 0] + sine(amplitude: 0.4))).isEmpty,
                "single full-scale samples are peaks, not clipping")
    }

    @Test func silenceAndNearSilenceAreFlagged() {
        #expect(AudioDefect.detect(pcm16: pcm16([Int16](repeating: 0, count: 4000))) == [.silent])
        #expect(AudioDefect.detect(pcm16: pcm16(sine(amplitude: 0.004))) == [.silent], "−48 dBFS peak")
        #expect(AudioDefect.detect(pcm16: pcm16(sine(amplitude: 0.01))).isEmpty, "−40 dBFS peak is quiet, not silent")
        #expect(AudioDefect.detect(pcm16: Data()) == [.silent])
    }

    @Test func runsAtFullScaleAreClipping() {
        #expect(AudioDefect.detect(pcm16: pcm16(sine(amplitude: 1.6))) == [.clipped])
        #expect(AudioDefect.detect(pcm16: pcm16([100, -32768, -32768, -32768, 100])) == [.clipped])
    }
}
