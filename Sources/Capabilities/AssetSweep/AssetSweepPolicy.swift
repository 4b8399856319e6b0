import Foundation
import RepartoRuntime
import RepartoConfiguration

/// What the asset sweep keeps (see docs/assets.md, "Lifecycle"):
/// `REPARTO_ASSET_GRACE` — how long an unreferenced file is kept after it was last written or
/// claimed (default 1h, at least 1m): longer than any job between producing a file and committing
/// the row that names it; `REPARTO_CACHE_MAX` — a cap on `cache/` (`20GB`, `500MB`; default none),
/// enforced by evicting the least recently used content no running production needs.
public struct AssetSweepPolicy: Sendable, Equatable {
    public var grace: Double
    /// Bytes; nil for no cap.
    public var cacheMax: Int64?

    public static let graceVariable = "REPARTO_ASSET_GRACE"
    public static let cacheMaxVariable = "REPARTO_CACHE_MAX"
    public static let standard = AssetSweepPolicy(grace: 3600, cacheMax: nil)
    public static let minimumGrace = 60.0

    public init(grace: Double, cacheMax: Int64? = nil) {
        self.grace = grace
        self.cacheMax = cacheMax
    }

    /// The policy the variables set, the standard one for those unset.
    /// - Throws: ``RetentionError`` naming the variable whose value does not parse.
    public init(configuration values: ConfigurationValues) throws(RetentionError) {
        self = .standard
        if let text = values[Self.graceVariable] { grace = try Self.grace(text, setting: Self.graceVariable) }
        if let text = values[Self.cacheMaxVariable] { cacheMax = try Self.bytes(text, setting: Self.cacheMaxVariable) }
    }

    /// A grace period: a duration of at least a minute.
    public static func grace(_ text: String, setting: String) throws(RetentionError) -> Double {
        let seconds = try RetentionPolicy.seconds(text, setting: setting)
        guard seconds.isFinite, seconds >= minimumGrace else {
            throw RetentionError(description: "bad \(setting) '\(text)': the grace must be between 1m and a finite duration such as 1h")
        }
        return seconds
    }

    /// `20GB`, `512MB`, `1.5G`, `800K`, a plain number of bytes; `none` for no cap. Units are
    /// binary (1 GB = 1024³ bytes), as `du -h` prints them.
    public static func bytes(_ text: String, setting: String) throws(RetentionError) -> Int64? {
        try ByteSizeSetting.parse(text, setting: setting, example: "20GB, 512MB")
    }

    /// `1.5 GB`, `512 MB`, `800 B`.
    public static func text(bytes: Int64) -> String {
        let units: [(String, Double)] = [("TB", 0x1p40), ("GB", 0x1p30), ("MB", 0x1p20), ("KB", 0x1p10)]
        for (unit, size) in units where Double(bytes) >= size {
            let value = Double(bytes) / size
            return value >= 10 || value == value.rounded() ? "\(Int(value.rounded())) \(unit)" : String(format: "%.1f %@", value, unit)
        }
        return "\(bytes) B"
    }
}
