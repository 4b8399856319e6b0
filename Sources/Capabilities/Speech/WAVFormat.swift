/// The sample format of PCM audio in a WAV file.
public struct WAVFormat: Codable, Sendable, Hashable, CustomStringConvertible {
    /// How samples are stored.
    public enum Encoding: String, Codable, Sendable, Hashable {
        /// Integer PCM (8-bit unsigned, 16/24/32-bit signed little-endian).
        case integer
        /// IEEE float (32 or 64-bit little-endian).
        case float
    }

    public var sampleRate: Int
    public var channels: Int
    public var bitsPerSample: Int
    public var encoding: Encoding

    public init(sampleRate: Int, channels: Int, bitsPerSample: Int = 16, encoding: Encoding = .integer) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitsPerSample = bitsPerSample
        self.encoding = encoding
    }

    /// Bytes per frame (one sample for every channel).
    public var blockAlign: Int { channels * bitsPerSample / 8 }

    /// 16-bit mono at `sampleRate`.
    public static func pcm16(sampleRate: Int, channels: Int = 1) -> WAVFormat {
        WAVFormat(sampleRate: sampleRate, channels: channels, bitsPerSample: 16, encoding: .integer)
    }

    public var description: String {
        "\(sampleRate) Hz, \(channels) ch, \(bitsPerSample)-bit \(encoding == .float ? "float" : "PCM")"
    }
}
