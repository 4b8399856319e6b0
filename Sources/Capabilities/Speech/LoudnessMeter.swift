import Foundation

/// A streaming EBU R128 meter (ITU-R BS.1770-4) for 16-bit PCM: integrated loudness with its
/// absolute and relative gates, loudness range (EBU Tech 3342), sample peak, RMS level and true
/// peak, measured in one pass as samples arrive.
///
/// The table read's assembler feeds it while it writes the audio, and the normalizer reads the
/// file it wrote through it, so neither needs a separate measuring pass of ffmpeg over hours of
/// audio. The figures agree with ffmpeg's `ebur128` filter to within a tenth of a unit; the
/// integration tests check the normalized result with ffmpeg's own meter.
public struct LoudnessMeter: Sendable {
    public let sampleRate: Int
    public let channels: Int
    private var filters: [KWeighting]
    /// The K-weighted energy of each complete 100 ms step (summed over channels), the unit the
    /// 400 ms gating blocks and the 3 s short-term windows are built from.
    private var steps: [Double] = []
    private var stepEnergy = 0.0
    private var stepFrames = 0
    private let framesPerStep: Int
    private var frames = 0
    private var peak: Int32 = 0
    private var sumOfSquares: Int64 = 0
    private var truePeak: TruePeakDetector?

    /// - Parameter truePeak: also measure the true peak (an oversampled look at the loud parts).
    public init(sampleRate: Int, channels: Int = 1, truePeak: Bool = true) {
        self.sampleRate = max(sampleRate, 1)
        self.channels = max(channels, 1)
        filters = Array(repeating: KWeighting(sampleRate: Double(max(sampleRate, 1))), count: max(channels, 1))
        framesPerStep = max(sampleRate / 10, 1)
        self.truePeak = truePeak ? TruePeakDetector(sampleRate: max(sampleRate, 1), channels: max(channels, 1)) : nil
    }

    /// Feeds interleaved little-endian 16-bit samples (whole frames; a trailing partial frame is
    /// ignored).
    public mutating func append(pcm16 raw: UnsafeRawBufferPointer) {
        let count = raw.count / 2 / channels * channels
        guard count > 0 else { return }
        truePeak?.append(pcm16: raw, samples: count)
        var index = 0
        while index < count {
            let take = min(framesPerStep - stepFrames, (count - index) / channels) * channels
            var energy = 0.0
            var localPeak = peak
            var squares: Int64 = 0
            for channel in 0..<channels {
                var filter = filters[channel]
                var i = index + channel
                let end = index + take
                while i < end {
                    let sample = Int32(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: i * 2, as: Int16.self)))
                    localPeak = max(localPeak, abs(sample))
                    squares += Int64(sample * sample)
                    let y = filter.process(Double(sample) / 32768)
                    energy += y * y
                    i += channels
                }
                filters[channel] = filter
            }
            peak = localPeak
            sumOfSquares += squares
            stepEnergy += energy
            stepFrames += take / channels
            frames += take / channels
            index += take
            if stepFrames == framesPerStep { closeStep() }
        }
    }

    /// Feeds `data`'s 16-bit samples.
    public mutating func append(pcm16 data: Data) {
        data.withUnsafeBytes { append(pcm16: $0) }
    }

    /// Feeds `count` frames of digital silence without touching each sample once the filters have
    /// settled (a table read is a third pauses).
    public mutating func appendSilence(frames count: Int) {
        var remaining = max(count, 0)
        truePeak?.appendSilence(frames: remaining)
        // The filters ring for about a tenth of a second after the sound stops: run them on zeros
        // until they are at rest, after which silence adds no energy and costs nothing.
        while remaining > 0 {
            let take = min(framesPerStep - stepFrames, remaining)
            if filters.allSatisfy(\.isAtRest) {
                stepFrames += take
            } else {
                var energy = 0.0
                for channel in 0..<channels {
                    var filter = filters[channel]
                    for _ in 0..<take {
                        let y = filter.process(0)
                        energy += y * y
                    }
                    filter.settle()
                    filters[channel] = filter
                }
                stepEnergy += energy
                stepFrames += take
            }
            frames += take
            remaining -= take
            if stepFrames == framesPerStep { closeStep() }
        }
    }

    private mutating func closeStep() {
        steps.append(stepEnergy / Double(framesPerStep))
        stepEnergy = 0
        stepFrames = 0
    }

    /// What was measured so far. Only complete 400 ms blocks count toward the integrated loudness
    /// (−∞ when none passes the −70 LUFS gate); the loudness range needs 3 s windows.
    public var measurement: LoudnessMeter.Reading {
        let blocks = Self.windows(steps, length: 4)
        let (integrated, relativeGate) = Self.gated(blocks, relativeGateLU: -10)
        let shortTerm = Self.windows(steps, length: 30)
        let (_, rangeGate) = Self.gated(shortTerm, relativeGateLU: -20)
        let inRange = shortTerm.filter { $0 > 0 && Self.lufs($0) > -70 && Self.lufs($0) >= rangeGate }.map(Self.lufs).sorted()
        var range = 0.0
        if inRange.count > 1 {
            func percentile(_ p: Double) -> Double { inRange[min(inRange.count - 1, Int((p * Double(inRange.count - 1)).rounded()))] }
            range = percentile(0.95) - percentile(0.10)
        }
        let samples = frames * channels
        let detected = truePeak.map { max(Double($0.peak), Double(peak) / 32768) }
        return Reading(integratedLUFS: integrated, threshold: relativeGate, loudnessRange: range,
                       samplePeakDBFS: 20 * log10(Double(peak) / 32768),
                       truePeakDBTP: detected.map { 20 * log10($0) },
                       rmsDBFS: samples == 0 ? -.infinity : 10 * log10(Double(sumOfSquares) / (32768 * 32768) / Double(samples)),
                       duration: Double(frames) / Double(sampleRate))
    }

    /// The mean energy of each window of `length` steps, advancing one step at a time.
    static func windows(_ steps: [Double], length: Int) -> [Double] {
        guard steps.count >= length else { return [] }
        var sums: [Double] = []
        sums.reserveCapacity(steps.count - length + 1)
        var sum = steps[0..<length].reduce(0, +)
        sums.append(sum / Double(length))
        for i in length..<steps.count {
            sum += steps[i] - steps[i - length]
            sums.append(max(sum, 0) / Double(length))
        }
        return sums
    }

    /// The gated loudness of `blocks` (absolute gate −70 LUFS, then `relativeGateLU` below the
    /// loudness of what passed it) and the relative gate itself.
    static func gated(_ blocks: [Double], relativeGateLU: Double) -> (loudness: Double, relativeGate: Double) {
        let absolute = blocks.filter { $0 > 0 && lufs($0) > -70 }
        guard !absolute.isEmpty else { return (-.infinity, -.infinity) }
        let relativeGate = lufs(absolute.reduce(0, +) / Double(absolute.count)) + relativeGateLU
        let kept = absolute.filter { lufs($0) > relativeGate }
        guard !kept.isEmpty else { return (-.infinity, relativeGate) }
        return (lufs(kept.reduce(0, +) / Double(kept.count)), relativeGate)
    }

    static func lufs(_ energy: Double) -> Double { -0.691 + 10 * log10(energy) }

    /// Measures a 16-bit PCM WAV file by streaming it.
    /// - Throws: ``WAVError`` for a file that is not such a WAV file, or cannot be read.
    public static func measure(wavFileAt path: String, truePeak: Bool = true) throws(WAVError) -> Reading {
        var meter: LoudnessMeter?
        try WAVFileStream.readPCM16(at: path) { format, block in
            if meter == nil { meter = LoudnessMeter(sampleRate: format.sampleRate, channels: format.channels, truePeak: truePeak) }
            meter?.append(pcm16: block)
        }
        return meter?.measurement ?? LoudnessMeter(sampleRate: 1).measurement
    }

    /// The true peak (dBTP) of a 16-bit PCM WAV file, without the loudness.
    /// - Throws: ``WAVError`` for a file that is not such a WAV file, or cannot be read.
    public static func truePeak(wavFileAt path: String) throws(WAVError) -> Double {
        var detector: TruePeakDetector?
        var samplePeak: Int32 = 0
        try WAVFileStream.readPCM16(at: path) { format, block in
            if detector == nil { detector = TruePeakDetector(sampleRate: format.sampleRate, channels: format.channels) }
            let samples = block.count / 2 / format.channels * format.channels
            for i in 0..<samples {
                samplePeak = max(samplePeak, abs(Int32(Int16(littleEndian: block.loadUnaligned(fromByteOffset: i * 2, as: Int16.self)))))
            }
            detector?.append(pcm16: block, samples: samples)
        }
        return 20 * log10(max(Double(detector?.peak ?? 0), Double(samplePeak) / 32768))
    }

    /// A measurement: loudness in LUFS, range in LU, levels in dBFS, true peak in dBTP.
    public struct Reading: Sendable, Hashable {
        public var integratedLUFS: Double
        /// The relative gate the integrated loudness was measured above.
        public var threshold: Double
        public var loudnessRange: Double
        public var samplePeakDBFS: Double
        /// nil when the meter was made without true-peak detection.
        public var truePeakDBTP: Double?
        public var rmsDBFS: Double
        public var duration: Double

        /// The same figures in the normalizer's terms: the true peak when measured, else the sample peak.
        public var loudness: LoudnessMeasurement {
            LoudnessMeasurement(integratedLUFS: integratedLUFS, peakDB: truePeakDBTP ?? samplePeakDBFS, peakIsTrue: truePeakDBTP != nil,
                                loudnessRange: loudnessRange, threshold: threshold)
        }
    }
}

/// BS.1770's K-weighting for one channel: a high shelf (the head's effect, +4 dB above about
/// 1.7 kHz) then a high-pass (RLB, about 38 Hz), both biquads designed for the sample rate from
/// the analogue prototypes, so at 48 kHz they are the standard's published coefficients.
struct KWeighting: Sendable {
    struct Biquad: Sendable, Equatable {
        var b0, b1, b2, a1, a2: Double
        var z1 = 0.0, z2 = 0.0

        @inline(__always) mutating func process(_ x: Double) -> Double {
            let y = b0 * x + z1
            z1 = b1 * x - a1 * y + z2
            z2 = b2 * x - a2 * y
            return y
        }
    }

    var shelf: Biquad
    var highPass: Biquad

    init(sampleRate: Double) {
        // The shelf: f0 1681.97 Hz, +4.0 dB, Q 0.7072.
        var k = tan(Double.pi * 1681.974450955533 / sampleRate)
        let q = 0.7071752369554196
        let vh = pow(10, 3.999843853973347 / 20)
        let vb = pow(vh, 0.4996667741545416)
        var a0 = 1 + k / q + k * k
        shelf = Biquad(b0: (vh + vb * k / q + k * k) / a0, b1: 2 * (k * k - vh) / a0, b2: (vh - vb * k / q + k * k) / a0,
                       a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
        // The high-pass: f0 38.14 Hz, Q 0.5003, unity gain in the pass band.
        k = tan(Double.pi * 38.13547087602444 / sampleRate)
        let q2 = 0.5003270373238773
        a0 = 1 + k / q2 + k * k
        highPass = Biquad(b0: 1, b1: -2, b2: 1, a1: 2 * (k * k - 1) / a0, a2: (1 - k / q2 + k * k) / a0)
    }

    @inline(__always) mutating func process(_ x: Double) -> Double {
        highPass.process(shelf.process(x))
    }

    var isAtRest: Bool { shelf.z1 == 0 && shelf.z2 == 0 && highPass.z1 == 0 && highPass.z2 == 0 }

    /// Zeroes state too small to matter: below 1e-12 of full scale its energy is under 1e-24, far
    /// beneath the −70 LUFS gate (1e-7).
    mutating func settle() {
        if abs(shelf.z1) < 1e-12, abs(shelf.z2) < 1e-12, abs(highPass.z1) < 1e-12, abs(highPass.z2) < 1e-12 {
            (shelf.z1, shelf.z2, highPass.z1, highPass.z2) = (0, 0, 0, 0)
        }
    }
}
