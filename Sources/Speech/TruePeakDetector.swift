import Foundation

/// The true peak of 16-bit PCM (ITU-R BS.1770-4 Annex 2): the largest magnitude of the signal
/// between its samples, found by interpolating each sample interval at `factor` points (at least
/// 4×, and at least 176.4 kHz, so a 22.05 kHz read is looked at 8×) with a windowed-sinc
/// (Lanczos, 16 taps) kernel.
///
/// Interpolating hours of audio costs more than everything else the meter does, so it is done
/// only where it can matter: a stretch of samples whose magnitude, times the kernel's largest
/// gain, cannot exceed the peak found so far is skipped. That bound is exact (the triangle
/// inequality), so the result is the same as interpolating everything.
struct TruePeakDetector: Sendable {
    static let taps = 16
    static let stretch = 64
    let factor: Int
    let channels: Int
    /// `kernel[p][j]`: the weight of sample `n + j - taps/2 + 1` at the point `n + p/factor`.
    private let kernel: [[Double]]
    /// The largest sum of absolute weights over the phases: no interpolated value exceeds the
    /// largest nearby sample magnitude by more than this factor.
    private let gainBound: Double
    /// The last `taps - 1` samples of each channel, carried into the next block.
    private var carry: [[Double]]
    /// The largest interpolated magnitude so far (full scale = 1).
    private(set) var peak = 0.0

    init(sampleRate: Int, channels: Int) {
        factor = max(4, Int((176_400 / Double(max(sampleRate, 1))).rounded(.up)))
        self.channels = max(channels, 1)
        let half = Self.taps / 2
        func sinc(_ x: Double) -> Double { x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x) }
        var kernel: [[Double]] = []
        for phase in 0..<factor {
            let offset = Double(phase) / Double(factor)
            kernel.append((0..<Self.taps).map { j in
                let t = offset - Double(j - half + 1)
                return abs(t) < Double(half) ? sinc(t) * sinc(t / Double(half)) : 0
            })
        }
        self.kernel = kernel
        gainBound = kernel.map { $0.reduce(0) { $0 + abs($1) } }.max() ?? 1
        carry = Array(repeating: Array(repeating: 0, count: Self.taps - 1), count: self.channels)
    }

    /// Feeds the first `samples` interleaved little-endian 16-bit samples of `raw`.
    mutating func append(pcm16 raw: UnsafeRawBufferPointer, samples: Int) {
        let frames = samples / channels
        for channel in 0..<channels {
            var signal = carry[channel]
            signal.reserveCapacity(signal.count + frames)
            for frame in 0..<frames {
                let at = (frame * channels + channel) * 2
                signal.append(Double(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int16.self))) / 32768)
            }
            scan(signal)
            carry[channel] = Array(signal.suffix(Self.taps - 1))
        }
    }

    /// Feeds `frames` of silence: only the first `taps` of them can be near a sample.
    mutating func appendSilence(frames: Int) {
        let count = min(max(frames, 0), Self.taps)
        guard count > 0 else { return }
        for channel in 0..<channels {
            let signal = carry[channel] + Array(repeating: 0, count: count)
            scan(signal)
            carry[channel] = Array(signal.suffix(Self.taps - 1))
        }
    }

    /// Interpolates every interval of `signal` that has a whole kernel's worth of samples around
    /// it (the interval after sample `n` needs samples `n - taps/2 + 1 ... n + taps/2`).
    private mutating func scan(_ signal: [Double]) {
        let taps = Self.taps
        guard signal.count >= taps else { return }
        let positions = signal.count - taps + 1  // window starts 0 ..< positions
        signal.withUnsafeBufferPointer { x in
            var start = 0
            while start < positions {
                let end = min(start + Self.stretch, positions)
                var loudest = 0.0
                for i in start..<(end + taps - 1) { loudest = max(loudest, abs(x[i])) }
                if loudest * gainBound > peak {
                    for window in start..<end {
                        for phase in 1..<factor {
                            var y = 0.0
                            kernel[phase].withUnsafeBufferPointer { h in
                                for j in 0..<taps { y += h[j] * x[window + j] }
                            }
                            peak = max(peak, abs(y))
                        }
                    }
                }
                start = end
            }
        }
    }
}
