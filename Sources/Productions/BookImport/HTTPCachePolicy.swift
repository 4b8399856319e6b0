import Foundation
import RepartoConfiguration
import RepartoRuntime

/// How much of `http_cache` is kept (the book services' answers every worker shares), pruned by
/// `book-import.prune-cache` (``HTTPCachePruneJob``):
/// `REPARTO_HTTP_CACHE_MAX_AGE` — entries fetched longer ago go even if their TTL says otherwise
/// (default 30d; `never`); expired entries always go, since nothing reads them;
/// `REPARTO_HTTP_CACHE_MAX` — a cap on the bodies' bytes (default 256MB; `none`), enforced by
/// removing the oldest entries first.
public struct HTTPCachePolicy: Sendable, Equatable {
    /// Seconds; `.infinity` for no age limit.
    public var maxAge: Double
    /// Bytes of answer bodies; nil for no cap.
    public var maxBytes: Int64?

    /// ``maxAge``'s variable: a duration (`30d`, `12h`) or `never`.
    public static let maxAgeVariable = "REPARTO_HTTP_CACHE_MAX_AGE"
    /// ``maxBytes``'s variable: a size (`256MB`, `1GB`) or `none`.
    public static let maxBytesVariable = "REPARTO_HTTP_CACHE_MAX"
    /// 30 days, 256 MB: a year of imports of a large library is a few tens of megabytes.
    public static let standard = HTTPCachePolicy(maxAge: 30 * 86_400, maxBytes: 256 << 20)

    /// A policy as given.
    public init(maxAge: Double, maxBytes: Int64?) {
        (self.maxAge, self.maxBytes) = (maxAge, maxBytes)
    }

    /// The policy the variables set, the standard one for those unset.
    /// - Throws: ``RepartoRuntime/RetentionError`` naming the variable whose value does not parse.
    public init(configuration values: ConfigurationValues) throws(RetentionError) {
        self = .standard
        if let text = values[Self.maxAgeVariable] { maxAge = try RetentionPolicy.seconds(text, setting: Self.maxAgeVariable) }
        if let text = values[Self.maxBytesVariable] { maxBytes = try Self.bytes(text, setting: Self.maxBytesVariable) }
    }

    /// `256MB`, `1.5G`, `800K`, a plain number of bytes; `none` for no cap. Units are binary.
    public static func bytes(_ text: String, setting: String) throws(RetentionError) -> Int64? {
        try ByteSizeSetting.parse(text, setting: setting, example: "256MB, 1GB")
    }
}
