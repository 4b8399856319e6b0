import Foundation

/// What is wrong with a line's audio, as a listener would notice it.
public enum AudioDefect: String, Codable, Sendable, CaseIterable, Hashable {
    /// Nothing audible: the peak stays below ``silentPeakDBFS``.
    case silent
    /// The waveform was cut off: at least ``clippedRunLength`` consecutive samples at full scale.
    case clipped

    /// Below this peak a line is silent (−45 dBFS: far under any speech a provider returns).
    public static let silentPeakDBFS = -45.0
    /// Consecutive full-scale samples that count as clipping (one such sample can be a legitimate peak).
    public static let clippedRunLength = 3

    /// The defects of 16-bit little-endian PCM samples (any channel count), in ``allCases`` order.
    public static func detect(pcm16 body: Data) -> [AudioDefect] {
        var peak: Int32 = 0
        var run = 0
        var clipped = false
        let count = body.count / 2
        body.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress else { return }
            for i in 0..<count {
                let sample = Int32(Int16(littleEndian: base.loadUnaligned(fromByteOffset: i * 2, as: Int16.self)))
                let magnitude = abs(sample)
                peak = max(peak, magnitude)
                run = magnitude >= 32767 ? run + 1 : 0
                if run >= clippedRunLength { clipped = true }
            }
        }
        var defects: [AudioDefect] = []
        if peak == 0 || 20 * log10(Double(peak) / 32768) < silentPeakDBFS { defects.append(.silent) }
        if clipped { defects.append(.clipped) }
        return defects
    }
}
