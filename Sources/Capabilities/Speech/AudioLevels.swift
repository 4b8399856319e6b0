import Foundation

/// Duration, peak and RMS level of a WAV file, measured in one pass over its samples.
///
/// The same figures as ``PCMAudio/duration``, ``PCMAudio/peakDBFS`` and ``PCMAudio/rmsDBFS``
/// without decoding into a float array first: 16-bit PCM (what every built-in provider returns)
/// is read in place; other formats are decoded through ``PCMAudio``.
public struct AudioLevels: Sendable, Hashable {
    /// Seconds.
    public var duration: Double
    /// Peak level in dBFS (`-infinity` for silence).
    public var peakDBFS: Double
    /// RMS level in dBFS (`-infinity` for silence or no samples).
    public var rmsDBFS: Double

    /// Measures a WAV file.
    /// - Throws: ``WAVError`` when `data` is not a WAV file ``WAVHeader`` accepts.
    public init(wav data: Data) throws(WAVError) {
        let header = try WAVHeader(parsing: data)
        let format = header.format
        guard format.encoding == .integer, format.bitsPerSample == 16 else {
            let pcm = try PCMAudio(wav: data)
            self.init(duration: pcm.duration, peakDBFS: pcm.peakDBFS, rmsDBFS: pcm.rmsDBFS)
            return
        }
        let count = header.dataLength / 2
        var peak: Int32 = 0
        var sumOfSquares: Int64 = 0  // 32768² × 2⁴⁰ samples would be needed to overflow
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let base = raw.baseAddress! + header.dataOffset
            for i in 0..<count {
                let sample = Int32(Int16(littleEndian: base.loadUnaligned(fromByteOffset: i * 2, as: Int16.self)))
                peak = max(peak, abs(sample))
                sumOfSquares += Int64(sample * sample)
            }
        }
        let frames = count / max(format.channels, 1)
        // As PCMAudio scales them: sample / 32768.
        let peakLevel = 20 * log10(Double(peak) / 32768)
        let rms = count == 0 ? -Double.infinity : 10 * log10(Double(sumOfSquares) / (32768 * 32768) / Double(count))
        self.init(duration: Double(frames) / Double(format.sampleRate), peakDBFS: peakLevel, rmsDBFS: rms)
    }

    public init(duration: Double, peakDBFS: Double, rmsDBFS: Double) {
        self.duration = duration
        self.peakDBFS = peakDBFS
        self.rmsDBFS = rmsDBFS
    }
}
