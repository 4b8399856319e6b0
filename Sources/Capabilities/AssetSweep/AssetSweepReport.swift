import Assets
import Foundation

/// Files and bytes.
public struct FileTally: Sendable, Equatable, Codable {
    public var files: Int
    public var bytes: Int64

    public init(files: Int = 0, bytes: Int64 = 0) {
        self.files = files
        self.bytes = bytes
    }

    mutating func add(_ size: Int64) {
        files += 1
        bytes += size
    }
}

/// What one sweep of the asset volume did (or, dry, would do).
public struct AssetSweepReport: Sendable, Equatable, Codable {
    /// Every file looked at.
    public var scanned = FileTally()
    /// Unreferenced files past the grace, removed.
    public var removed = FileTally()
    /// Unreferenced files still within the grace (a job may be about to name them), kept.
    public var keptYoung = FileTally()
    /// Cache content evicted to honour `REPARTO_CACHE_MAX` (row and file).
    public var evicted = FileTally()
    /// The cache's size after the sweep.
    public var cacheBytes: Int64 = 0
    /// Files the sweep should have removed but could not (permissions, a read-only volume, …): it
    /// went on with the others.
    public var failed = FileTally()
    /// The first of those (at most ``failureSampleLimit``), with the reason.
    public var failures: [Failure] = []

    /// A file the sweep could not remove.
    public struct Failure: Sendable, Equatable, Codable {
        public var path: String
        public var reason: String
    }

    /// How many failures a report names; ``failed`` counts them all.
    public static let failureSampleLimit = 20

    public init() {}

    mutating func recordFailure(_ file: AssetFile, _ error: any Error) {
        failed.add(file.size)
        if failures.count < Self.failureSampleLimit { failures.append(Failure(path: file.path, reason: "\(error)")) }
    }
}

/// The asset volume by area, and how much of each area nothing references.
public struct AssetUsage: Sendable, Equatable, Codable {
    public struct Area: Sendable, Equatable, Codable {
        public var name: String
        public var total: FileTally
        /// Files no row names (production folders whose production is gone, cache content
        /// without its row, sources no table read or document names, temporary files).
        public var unreferenced: FileTally
    }

    /// By name: `productions`, `sources`, `cache/<kind>`, `temporary`, `other`.
    public var areas: [Area]

    public var total: FileTally {
        areas.reduce(into: FileTally()) { $0.files += $1.total.files; $0.bytes += $1.total.bytes }
    }

    public var unreferenced: FileTally {
        areas.reduce(into: FileTally()) { $0.files += $1.unreferenced.files; $0.bytes += $1.unreferenced.bytes }
    }
}
