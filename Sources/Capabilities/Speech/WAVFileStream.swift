import Foundation

/// Reads a 16-bit PCM WAV file's samples in blocks without loading it whole (a table read can be
/// hours long).
enum WAVFileStream {
    /// Calls `body` with the file's format and each block of its samples, in order.
    /// - Throws: ``WAVError`` for a file that is not a 16-bit PCM WAV file, or cannot be read.
    static func readPCM16(at path: String, _ body: (WAVFormat, UnsafeRawBufferPointer) -> Void) throws(WAVError) {
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
                guard size <= 1 << 16 else { throw .malformed("fmt chunk of \(size) bytes") }
                // The fmt chunk with an empty streaming-size data chunk is a WAV file WAVHeader reads.
                var prefix = riff + chunk + read(size + (size & 1))
                prefix += Data("data".utf8) + Data([0xFF, 0xFF, 0xFF, 0x7F])
                format = try WAVHeader(parsing: prefix).format
            } else if id == "data" {
                guard let format else { throw .malformed("data chunk before fmt chunk") }
                guard format.encoding == .integer, format.bitsPerSample == 16 else {
                    throw .unsupported("a streamed file needs 16-bit PCM, not \(format)")
                }
                var remaining = size >= 0x7FFF_0000 ? Int.max : size
                var pending = Data()  // an odd byte or partial frame left from the last block
                while remaining > 0 {
                    let block = read(min(remaining, 1 << 20))
                    if block.isEmpty { break }
                    remaining -= block.count
                    pending += block
                    let whole = pending.count - pending.count % format.blockAlign
                    pending.withUnsafeBytes { body(format, UnsafeRawBufferPointer(rebasing: $0[0..<whole])) }
                    pending = Data(pending[(pending.startIndex + whole)...])
                }
                body(format, UnsafeRawBufferPointer(start: nil, count: 0))  // so an empty file's format is known too
                return
            } else {
                // Skipped without reading it into memory: a chunk may declare up to 4 GiB.
                guard let here = try? handle.offset(), (try? handle.seek(toOffset: here + UInt64(size + (size & 1)))) != nil else {
                    throw .truncated("\(id) chunk")
                }
            }
        }
    }
}
