/// Turns raw bytes into text, rejecting inputs that are not a text screenplay.
///
/// Rules, in order: size limit; empty; UTF-32 BOM → unsupported; UTF-16 BOM (LE or BE) →
/// decoded (invalid UTF-16 is an error); UTF-8 BOM skipped; NUL byte → binary; more than
/// 8 (or 1 %) other C0 control bytes besides tab, LF, CR, FF, VT and SUB → binary; valid UTF-8 →
/// read as UTF-8; not UTF-8 and without a single valid multi-byte UTF-8 sequence (a file written
/// by a Windows or Latin-1 tool) → read as Windows-1252 with a ``ParseWarning/Code/legacyEncoding``
/// warning; invalid UTF-8 mixed with valid multi-byte sequences (a damaged UTF-8 file) → error;
/// whitespace-only → empty.
public enum InputDecoder {
    /// Decoded text and what was surprising about its bytes.
    public struct Decoded: Sendable, Hashable {
        public var text: String
        public var warnings: [ParseWarning]
    }

    /// Decodes `bytes` to a `String`, or throws a ``ScreenplayError``; drops the warnings.
    public static func decode(_ bytes: [UInt8], options: ParseOptions = ParseOptions()) throws(ScreenplayError) -> String {
        try decodeWithWarnings(bytes, options: options).text
    }

    /// Decodes `bytes` with the warnings (a legacy encoding), or throws a ``ScreenplayError``.
    public static func decodeWithWarnings(_ bytes: [UInt8],
                                          options: ParseOptions = ParseOptions()) throws(ScreenplayError) -> Decoded {
        if bytes.count > options.maxBytes { throw .tooLarge(size: bytes.count, limit: options.maxBytes) }
        if bytes.isEmpty { throw .empty }
        let text: String
        var warnings: [ParseWarning] = []
        if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) || bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) {
            throw .unsupportedEncoding("UTF-32")
        } else if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            text = try decodeUTF16(bytes, littleEndian: bytes[0] == 0xFF)
            if text.utf8.contains(0) { throw .binary(offset: 0) }
        } else {
            let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            try checkBinary(bytes, from: start)
            if let valid = String(validating: bytes[start...], as: UTF8.self) {
                text = valid
            } else {
                let offset = firstInvalidUTF8(bytes, from: start) ?? start
                guard start == 0, !containsMultiByteUTF8(bytes) else { throw .invalidUTF8(offset: offset) }
                text = windows1252(bytes)
                warnings.append(ParseWarning(
                    code: .legacyEncoding,
                    message: "the file is not UTF-8 (first non-UTF-8 byte at \(offset)); read as Windows-1252 (Latin-1)"))
            }
        }
        if text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x0C || $0 == 0x0B }) {
            throw .empty
        }
        return Decoded(text: text, warnings: warnings)
    }

    /// True when `bytes` hold at least one well-formed multi-byte UTF-8 sequence.
    static func containsMultiByteUTF8(_ bytes: [UInt8]) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            let need = b & 0xE0 == 0xC0 ? 1 : b & 0xF0 == 0xE0 ? 2 : b & 0xF8 == 0xF0 ? 3 : 0
            if need > 0, i + need < n, (1...need).allSatisfy({ bytes[i + $0] & 0xC0 == 0x80 }),
               String(validating: bytes[i...(i + need)], as: UTF8.self) != nil {
                return true
            }
            i += 1
        }
        return false
    }

    /// The characters of Windows-1252's bytes 0x80–0x9F (the five it leaves undefined map to the
    /// C1 controls of the same value, as the WHATWG encoding standard does); other bytes are Latin-1.
    static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    static func windows1252(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(bytes.count)
        for b in bytes {
            let value = (0x80...0x9F).contains(b) ? windows1252High[Int(b) - 0x80] : UInt32(b)
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }

    static func checkBinary(_ bytes: [UInt8], from start: Int) throws(ScreenplayError) {
        let allowedBudget = max(8, (bytes.count - start) / 100)
        var controls = 0
        let firstControl: Int? = bytes.withUnsafeBufferPointer { p in
            var i = start
            while i < p.count {
                let b = p[i]
                if b < 0x20 && b != 0x0A && b != 0x09 && b != 0x0D { return i }
                i += 1
            }
            return nil
        }
        guard let firstControl else { return }
        for i in firstControl..<bytes.count {
            let b = bytes[i]
            if b >= 0x20 { continue }
            if b == 0 { throw .binary(offset: i) }
            switch b {
            case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1A: continue
            default:
                controls += 1
                if controls > allowedBudget { throw .binary(offset: i) }
            }
        }
    }

    static func decodeUTF16(_ bytes: [UInt8], littleEndian: Bool) throws(ScreenplayError) -> String {
        guard bytes.count % 2 == 0 else { throw .invalidUTF16 }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2 - 1)
        var i = 2
        while i + 1 < bytes.count {
            let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
            units.append(littleEndian ? (b << 8 | a) : (a << 8 | b))
            i += 2
        }
        var scalars = String.UnicodeScalarView()
        let failed = transcode(units.makeIterator(), from: UTF16.self, to: UTF32.self, stoppingOnError: true) { unit in
            if let scalar = Unicode.Scalar(unit) { scalars.append(scalar) }
        }
        if failed { throw .invalidUTF16 }
        return String(scalars)
    }

    /// Returns the offset of the first byte that is not part of a valid UTF-8 sequence.
    static func firstInvalidUTF8(_ bytes: [UInt8], from start: Int) -> Int? {
        var i = start
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            var need = 0
            var minScalar: UInt32 = 0
            var scalar: UInt32 = 0
            if b & 0xE0 == 0xC0 { need = 1; scalar = UInt32(b & 0x1F); minScalar = 0x80 }
            else if b & 0xF0 == 0xE0 { need = 2; scalar = UInt32(b & 0x0F); minScalar = 0x800 }
            else if b & 0xF8 == 0xF0 { need = 3; scalar = UInt32(b & 0x07); minScalar = 0x10000 }
            else { return i }
            if i + need >= n { return i }
            for k in 1...need {
                let c = bytes[i + k]
                if c & 0xC0 != 0x80 { return i }
                scalar = scalar << 6 | UInt32(c & 0x3F)
            }
            if scalar < minScalar || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return i }
            i += need + 1
        }
        return nil
    }
}
