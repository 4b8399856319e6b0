import Foundation

extension AudioLevels {
    /// Measures a 16-bit PCM WAV file by streaming it (a table read can be hours long).
    /// - Throws: ``WAVError`` for a file that is not such a WAV file, or cannot be read.
    public init(wavFileAt path: String) throws(WAVError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .notWAV("cannot open \(path)") }
        defer { try? handle.close() }
        func read(_ count: Int) -> Data { (try? handle.read(upToCount: count)) ?? Data() }
        let riff = read(12)
        var format: WAVFormat?
        while true {
            let chunk = read(8)
            guard chunk.count == 8 else { throw format == nil ? .malformed("no fmt chunk") : .malformed("no data chunk") }
            let id = String(decoding: chunk.prefix(4), as: UTF8.self)
            let size = Int(chunk.le32(at: 4))
            if id == "fmt " {
                // The fmt chunk with an empty streaming-size data chunk is a WAV file WAVHeader reads.
                var prefix = riff + chunk + read(size + (size & 1))
                prefix += Data("data".utf8) + Data([0xFF, 0xFF, 0xFF, 0x7F])
                format = try WAVHeader(parsing: prefix).format
            } else if id == "data" {
                guard let format else { throw .malformed("data chunk before fmt chunk") }
                guard format.encoding == .integer, format.bitsPerSample == 16 else {
                    throw .unsupported("levels of a streamed file need 16-bit PCM, not \(format)")
                }
                var peak: Int32 = 0, sumOfSquares: Int64 = 0, count = 0
                var remaining = size >= 0x7FFF_0000 ? Int.max : size
                while remaining > 0 {
                    let block = read(min(remaining, 1 << 20))
                    if block.isEmpty { break }
                    remaining -= block.count
                    block.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                        for i in 0..<(raw.count / 2) {
                            let sample = Int32(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: i * 2, as: Int16.self)))
                            peak = max(peak, abs(sample))
                            sumOfSquares += Int64(sample * sample)
                        }
                    }
                    count += block.count / 2
                }
                let frames = count / max(format.channels, 1)
                self.init(duration: Double(frames) / Double(format.sampleRate), peakDBFS: 20 * log10(Double(peak) / 32768),
                          rmsDBFS: count == 0 ? -.infinity : 10 * log10(Double(sumOfSquares) / (32768 * 32768) / Double(count)))
                return
            } else {
                _ = read(size + (size & 1))
            }
        }
    }
}
