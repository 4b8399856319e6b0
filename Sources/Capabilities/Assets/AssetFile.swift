import Foundation

/// One file on the asset volume, as the lifecycle sees it (see docs/assets.md, "Lifecycle").
public struct AssetFile: Sendable, Hashable {
    /// The path relative to the store root.
    public let path: String
    public let size: Int64
    /// Last written or claimed (``AssetStore/claimBlocking(_:)`` sets it to now).
    public let modified: Date

    /// Where the file lives, which decides what may reference it.
    public var area: AssetArea { AssetArea(path: path) }
}

/// The areas of the asset volume.
public enum AssetArea: Sendable, Hashable {
    /// `productions/<folder>/…`: kept while the production's row exists.
    case production(folder: String)
    /// `sources/…`: submitted files, kept while a table read or document names them.
    case source
    /// `cache/<kind>/…`: content-addressed output, kept while a `generated_content` row names it.
    case cache(kind: String)
    /// A `.tmp-` file a crashed writer left (a live writer's is young).
    case temporary
    /// Anything else (`requests/`, files put there by hand): never removed.
    case other

    public init(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.last?.hasPrefix(".tmp-") == true { self = .temporary; return }
        switch parts.first {
        case "productions" where parts.count >= 3: self = .production(folder: String(parts[1]))
        case "sources" where parts.count >= 2: self = .source
        case "cache" where parts.count >= 3: self = .cache(kind: String(parts[1]))
        default: self = .other
        }
    }

    /// A short name for reports: `productions`, `sources`, `cache/<kind>`, `temporary`, `other`.
    public var name: String {
        switch self {
        case .production: return "productions"
        case .source: return "sources"
        case .cache(let kind): return "cache/\(kind)"
        case .temporary: return "temporary"
        case .other: return "other"
        }
    }
}
