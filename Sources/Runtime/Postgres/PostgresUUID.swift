import Foundation

/// A UUID's text the way PostgreSQL writes it (lowercase, hyphenated), both ways without
/// Foundation's `snprintf` and `sscanf`: every claim and completion sends and reads its jobs'
/// ids as text, and those calls were about a twentieth of a worker's CPU.
enum PostgresUUID {
    /// Whether a hyphen comes before the byte at `index` (8-4-4-4-12 digits).
    private static func hyphenBefore(_ index: Int) -> Bool {
        index == 4 || index == 6 || index == 8 || index == 10
    }

    /// `uuid` as 36 lowercase characters with hyphens.
    static func text(_ uuid: UUID) -> String {
        let bytes = uuid.uuid
        return withUnsafeBytes(of: bytes) { raw in
            String(unsafeUninitializedCapacity: 36) { out in
                var at = 0
                for index in 0..<16 {
                    if hyphenBefore(index) {
                        out[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    out[at] = PostgresBytea.hexDigits[Int(raw[index] >> 4)]
                    out[at + 1] = PostgresBytea.hexDigits[Int(raw[index] & 0x0f)]
                    at += 2
                }
                return at
            }
        }
    }

    /// The UUID in `text`: 32 hex digits in either case, hyphenated 8-4-4-4-12. Text of another
    /// length goes to Foundation's parser (nil when it is no UUID either); 36 characters that are
    /// not a UUID are nil.
    static func parse(_ text: String) -> UUID? {
        var text = text
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let read = text.withUTF8 { utf8 -> Bool? in
            guard utf8.count == 36 else { return nil }
            return withUnsafeMutableBytes(of: &uuid) { out in
                var at = 0
                for index in 0..<16 {
                    if hyphenBefore(index) {
                        guard utf8[at] == UInt8(ascii: "-") else { return false }
                        at += 1
                    }
                    guard let high = PostgresBytea.nibble(utf8[at]), let low = PostgresBytea.nibble(utf8[at + 1]) else { return false }
                    out[index] = high << 4 | low
                    at += 2
                }
                return true
            }
        }
        switch read {
        case true?: return UUID(uuid: uuid)
        case false?: return nil
        case nil: return UUID(uuidString: text)
        }
    }
}
