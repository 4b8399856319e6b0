/// Lower-case hexadecimal text of bytes: how checksums and content keys are written (two digits a
/// byte, as `sha256sum` prints them).
public enum HexDigest {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lower-case hex, e.g. a SHA-256 digest as its 64-character form.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
