import Foundation

/// The parsed header of a WAV file: its format and where the sample bytes are.
///
/// Parsing looks only at the chunk headers, so it is cheap enough to validate every provider
/// response. Supported: `WAVE_FORMAT_PCM` (8/16/24/32-bit), `WAVE_FORMAT_IEEE_FLOAT` (32/64-bit)
/// and `WAVE_FORMAT_EXTENSIBLE` with a PCM or float sub-format; anything else is rejected with
/// ``WAVError``.
public struct WAVHeader: Sendable, Hashable {
    public var format: WAVFormat
    /// Byte offset of the first sample in the file.
    public var dataOffset: Int
    /// Number of sample bytes actually present (whole frames only).
    public var dataLength: Int
    /// True when the header declared more data than the file holds with a streaming placeholder
    /// size (espeak-ng `--stdout` writes `0x7ffff000`); such files are accepted and clamped.
    public var wasStreamingHeader: Bool

    /// Frames (samples per channel).
    public var frameCount: Int { dataLength / max(format.blockAlign, 1) }
    /// Duration in seconds.
    public var duration: Double { Double(frameCount) / Double(format.sampleRate) }

    /// Parses the header of `data`.
    /// - Throws: ``WAVError``.
    public init(parsing data: Data) throws(WAVError) {
        guard data.count >= 12 else { throw .notWAV("only \(data.count) bytes") }
        let bytes = [UInt8](data.prefix(12))
        guard bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45] else {
            throw .notWAV("missing RIFF/WAVE signature")
        }
        var offset = 12
        var format: WAVFormat?
        while offset + 8 <= data.count {
            let id = String(decoding: data[data.startIndex + offset ..< data.startIndex + offset + 4], as: UTF8.self)
            let size = Int(data.le32(at: offset + 4))
            let body = offset + 8
            if id == "fmt " {
                guard size >= 16, body + 16 <= data.count else { throw .truncated("fmt chunk") }
                format = try Self.parseFormat(data, at: body, size: size)
            } else if id == "data" {
                guard let format else { throw .malformed("data chunk before fmt chunk") }
                let available = data.count - body
                var length = size
                var streaming = false
                if size > available {
                    // espeak-ng and other streaming writers put a placeholder size; accept those,
                    // reject a real size that promises more than we got.
                    guard size >= 0x7FFF_0000 else { throw .truncated("data chunk declares \(size) bytes, \(available) present") }
                    length = available
                    streaming = true
                }
                let align = max(format.blockAlign, 1)
                self.format = format
                self.dataOffset = body
                self.dataLength = length - length % align
                self.wasStreamingHeader = streaming
                return
            }
            guard size >= 0 else { throw .malformed("negative chunk size") }
            offset = body + size + (size & 1)
        }
        throw format == nil ? .malformed("no fmt chunk") : .malformed("no data chunk")
    }

    private static func parseFormat(_ data: Data, at body: Int, size: Int) throws(WAVError) -> WAVFormat {
        var tag = Int(data.le16(at: body))
        let channels = Int(data.le16(at: body + 2))
        let rate = Int(data.le32(at: body + 4))
        let bits = Int(data.le16(at: body + 14))
        if tag == 0xFFFE {  // WAVE_FORMAT_EXTENSIBLE: the real tag is the first 2 bytes of the sub-format GUID
            guard size >= 40, body + 40 <= data.count else { throw .truncated("extensible fmt chunk") }
            tag = Int(data.le16(at: body + 24))
        }
        guard channels >= 1, channels <= 32 else { throw .unsupported("\(channels) channels") }
        guard rate >= 1000, rate <= 768_000 else { throw .unsupported("sample rate \(rate)") }
        switch (tag, bits) {
        case (1, 8), (1, 16), (1, 24), (1, 32):
            return WAVFormat(sampleRate: rate, channels: channels, bitsPerSample: bits, encoding: .integer)
        case (3, 32), (3, 64):
            return WAVFormat(sampleRate: rate, channels: channels, bitsPerSample: bits, encoding: .float)
        default:
            throw .unsupported("format tag \(tag) with \(bits) bits (only PCM and IEEE float)")
        }
    }
}

/// Why bytes are not a usable WAV file.
public enum WAVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No RIFF/WAVE signature: not a WAV file at all.
    case notWAV(String)
    /// The file ends inside a chunk.
    case truncated(String)
    /// Chunks are missing or inconsistent.
    case malformed(String)
    /// A valid WAV in a format we do not read (compressed codecs, odd bit depths).
    case unsupported(String)

    public var description: String {
        switch self {
        case .notWAV(let s): return "not a WAV file (\(s))"
        case .truncated(let s): return "truncated WAV (\(s))"
        case .malformed(let s): return "malformed WAV (\(s))"
        case .unsupported(let s): return "unsupported WAV (\(s))"
        }
    }
}

extension Data {
    func le16(at offset: Int) -> UInt16 {
        let i = startIndex + offset
        return UInt16(self[i]) | UInt16(self[i + 1]) << 8
    }
    func le32(at offset: Int) -> UInt32 {
        let i = startIndex + offset
        return UInt32(self[i]) | UInt32(self[i + 1]) << 8 | UInt32(self[i + 2]) << 16 | UInt32(self[i + 3]) << 24
    }
    mutating func appendLE16(_ v: UInt16) { append(UInt8(v & 0xFF)); append(UInt8(v >> 8)) }
    mutating func appendLE32(_ v: UInt32) {
        append(UInt8(v & 0xFF)); append(UInt8((v >> 8) & 0xFF)); append(UInt8((v >> 16) & 0xFF)); append(UInt8(v >> 24))
    }
}
