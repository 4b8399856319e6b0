import Foundation

/// A size setting as people write it: `20GB`, `512MB`, `1.5G`, `800K`, a plain number of bytes,
/// or `none` for no cap. Units are binary (1 GB = 1024³ bytes), as `du -h` prints them.
public enum ByteSizeSetting {
    /// The bytes `text` names, nil for `none`.
    /// - Parameters:
    ///   - setting: the variable's name, for the error.
    ///   - example: sizes to suggest in the error (`20GB, 512MB`).
    /// - Throws: ``RetentionError`` for anything else, and for sizes of 9e18 bytes or more.
    public static func parse(_ text: String, setting: String, example: String) throws(RetentionError) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        if trimmed == "NONE" { return nil }
        var number = trimmed
        var scale = 1.0
        for (suffix, size) in [("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10),
                               ("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10), ("B", 1)] where trimmed.hasSuffix(suffix) {
            number = String(trimmed.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            scale = Double(size)
            break
        }
        // Below 9e18, so the conversion to Int64 cannot trap.
        guard let value = Double(number), value.isFinite, value > 0, value * scale < 9e18 else {
            throw RetentionError(description: "bad \(setting) '\(text)': expected a size such as \(example), or none")
        }
        return Int64(value * scale)
    }
}
