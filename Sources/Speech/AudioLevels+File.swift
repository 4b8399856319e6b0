import Foundation

extension AudioLevels {
    /// Measures a 16-bit PCM WAV file by streaming it (a table read can be hours long).
    /// - Throws: ``WAVError`` for a file that is not such a WAV file, or cannot be read.
    public init(wavFileAt path: String) throws(WAVError) {
        var peak: Int32 = 0, sumOfSquares: Int64 = 0, count = 0
        var format = WAVFormat.pcm16(sampleRate: 1)
        try WAVFileStream.readPCM16(at: path) { blockFormat, raw in
            format = blockFormat
            for i in 0..<(raw.count / 2) {
                let sample = Int32(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: i * 2, as: Int16.self)))
                peak = max(peak, abs(sample))
                sumOfSquares += Int64(sample * sample)
            }
            count += raw.count / 2
        }
        let frames = count / max(format.channels, 1)
        self.init(duration: Double(frames) / Double(format.sampleRate), peakDBFS: 20 * log10(Double(peak) / 32768),
                  rmsDBFS: count == 0 ? -.infinity : 10 * log10(Double(sumOfSquares) / (32768 * 32768) / Double(count)))
    }
}
