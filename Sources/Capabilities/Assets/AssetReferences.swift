/// What one production type's rows name on the asset volume, as the queries the asset sweep runs:
/// a file they name is kept while the row exists, and a cache entry they pin is never evicted.
///
/// Each production type declares its own (`ProductionType.assetReferences`) and the composition
/// root hands every type's to the sweep, so a new type's files are safe by declaration,
/// not by the sweep knowing its tables.
public struct AssetReferences: Sendable {
    /// Who declares them, for messages.
    public var owner: String
    /// A `SELECT` with one text column, `path`: volume-relative paths of files the type's rows name.
    public var pathsSQL: String?
    /// A `SELECT` with one text column, `content_key`: cache entries (`<kind>:<digest>`) the type's
    /// rows point at, which cache eviction must keep.
    public var pinnedKeysSQL: String?
    /// A `SELECT` with one text column, `content_key`, given the running productions' ids as
    /// `$1` (`uuid[]`): cache entries those productions are still using, kept while they run.
    public var inUseKeysSQL: String?

    public init(owner: String, pathsSQL: String? = nil, pinnedKeysSQL: String? = nil, inUseKeysSQL: String? = nil) {
        self.owner = owner
        self.pathsSQL = pathsSQL
        self.pinnedKeysSQL = pinnedKeysSQL
        self.inUseKeysSQL = inUseKeysSQL
    }
}
