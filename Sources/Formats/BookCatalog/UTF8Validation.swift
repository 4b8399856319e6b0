/// Strict UTF-8 decoding (no overlongs, no surrogates, nothing above U+10FFFF).
enum UTF8Validation {
    /// The scalar of the valid UTF-8 sequence that starts at `i` and its length in bytes, or `nil`
    /// when the byte at `i` starts no valid sequence. `i` must be an index of `bytes`.
    static func scalar(in bytes: ArraySlice<UInt8>, at i: Int) -> (scalar: Unicode.Scalar, length: Int)? {
        let b = bytes[i]
        if b < 0x80 { return (Unicode.Scalar(b), 1) }
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        var value: UInt32
        switch b {
        case 0xC2...0xDF: length = 2; value = UInt32(b & 0x1F)
        case 0xE0: length = 3; low = 0xA0; value = UInt32(b & 0x0F)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3; value = UInt32(b & 0x0F)
        case 0xED: length = 3; high = 0x9F; value = UInt32(b & 0x0F)
        case 0xF0: length = 4; low = 0x90; value = UInt32(b & 0x07)
        case 0xF1...0xF3: length = 4; value = UInt32(b & 0x07)
        case 0xF4: length = 4; high = 0x8F; value = UInt32(b & 0x07)
        default: return nil
        }
        guard bytes.endIndex - i >= length else { return nil }
        let second = bytes[i + 1]
        guard second >= low && second <= high else { return nil }
        value = value << 6 | UInt32(second & 0x3F)
        for k in 2..<length {
            let next = bytes[i + k]
            guard (0x80...0xBF).contains(next) else { return nil }
            value = value << 6 | UInt32(next & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    /// The offset (in the collection's own indices) of the first byte that starts an invalid
    /// sequence, or `nil` when every byte is part of valid UTF-8.
    static func firstInvalidByte(in bytes: ArraySlice<UInt8>) -> Int? {
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard let (_, length) = scalar(in: bytes, at: i) else { return i }
            i += length
        }
        return nil
    }
}
