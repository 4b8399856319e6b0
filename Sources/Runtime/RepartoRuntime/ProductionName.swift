import Foundation

/// Names for productions: a name maps to a stable id, so `--production nightly` twice (or two
/// library calls with the same name) means one production.
public enum ProductionName {
    /// The production a reference means: the UUID itself when it is one, else the name's id.
    public static func resolve(_ reference: String) -> UUID {
        UUID(uuidString: reference) ?? id(for: reference)
    }

    /// The stable id of the production named `name`.
    public static func id(for name: String) -> UUID {
        // Stable name-based id (FNV-1a over the name, spread over 128 bits).
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in name.utf8 {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x100_0000_01b3 &+ 7
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i))); bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i))) }
        bytes[6] = (bytes[6] & 0x0f) | 0x50 // version 5-style
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
