import Assets
import Foundation
import RepartoRuntime
import Postgres
import Threading

/// Finds the files on the asset volume that nothing references any more and removes them after a
/// grace period; optionally caps the content cache by evicting least recently used entries.
///
/// What references a file: `productions/<id>/…` the production's row; `cache/<kind>/…` the
/// `generated_content` row of its content key; `sources/…` (and any other path) a row of a
/// production type that names it, as each type declares in its ``AssetReferences``. Cache
/// eviction keeps what running table reads use and what a declaration pins (a storyboard's frames).
/// `requests/` and anything else is never touched. Removal re-checks, under the file's lock, that
/// the file was not written or claimed within the grace, so content a running job has just
/// produced or reused (see ``AssetStore/claimBlocking(_:)``) stays. See docs/assets.md, "Lifecycle".
public struct AssetSweeper: Sendable {
    private let store: AssetStore, postgres: PostgresClient
    /// The grace and the cache cap it sweeps by.
    public let policy: AssetSweepPolicy
    /// What the production types' rows name, every type's (the composition root's list).
    public let references: [AssetReferences]

    /// A sweeper of the volume `store` opens, with the references the database of `postgres` holds
    /// as `references` declare them. Pass every type's: a file no reference names is garbage.
    public init(store: AssetStore, postgres: PostgresClient, policy: AssetSweepPolicy, references: [AssetReferences]) {
        (self.store, self.postgres, self.policy) = (store, postgres, policy)
        self.references = references
    }

    /// The volume by area, with what is unreferenced.
    public func usage() async throws -> AssetUsage {
        var areas: [String: AssetUsage.Area] = [:]
        for (file, referenced) in try await classified() {
            let name = file.area.name
            var area = areas[name] ?? AssetUsage.Area(name: name, total: FileTally(), unreferenced: FileTally())
            area.total.add(file.size)
            if !referenced { area.unreferenced.add(file.size) }
            areas[name] = area
        }
        return AssetUsage(areas: areas.values.sorted { $0.name < $1.name })
    }

    /// One sweep: unreferenced files past the grace go, then the cache is brought under its cap.
    /// A dry run counts and changes nothing.
    public func sweep(dryRun: Bool = false, now: Date = Date()) async throws -> AssetSweepReport {
        try await sweep(dryRun: dryRun, now: now, afterListing: nil)
    }

    /// `afterListing` runs between the listing and the removals (tests race a claim there).
    func sweep(dryRun: Bool, now: Date, afterListing: (@Sendable () async throws -> Void)?) async throws -> AssetSweepReport {
        let files = try await classified()
        try await afterListing?()
        let idleBefore = now.addingTimeInterval(-policy.grace)
        var report = AssetSweepReport()
        var cached: [AssetFile] = []
        for (file, referenced) in files {
            report.scanned.add(file.size)
            let isCache: Bool
            if case .cache = file.area { isCache = true } else { isCache = false }
            if referenced {
                if isCache { cached.append(file); report.cacheBytes += file.size }
                continue
            }
            guard file.modified < idleBefore else {
                report.keptYoung.add(file.size)
                if isCache { report.cacheBytes += file.size }
                continue
            }
            let removed: Bool
            do {
                removed = dryRun ? true : try await store.removeIdle(file.path, idleBefore: idleBefore)
            } catch let error as AssetError {
                // One file that cannot go must not keep every file after it on the volume.
                report.recordFailure(file, error)
                if isCache { report.cacheBytes += file.size }
                continue
            }
            if removed { report.removed.add(file.size) } else if isCache { report.cacheBytes += file.size }
        }
        if let cap = policy.cacheMax, report.cacheBytes > cap {
            try await evict(cached, down: cap, idleBefore: idleBefore, dryRun: dryRun, report: &report)
        }
        return report
    }

    /// Least recently used first (a claim sets the time), skipping what running table reads use
    /// and what was used within the grace.
    private func evict(_ cached: [AssetFile], down cap: Int64, idleBefore: Date, dryRun: Bool,
                       report: inout AssetSweepReport) async throws {
        let inUse = try await postgres.withTransaction { connection in
            try connection.execute("SET LOCAL \(ClusterSettings.allNamespacesSetting) TO on")
            return try AssetReferenceRows.keysInUse(by: try ProductionJobs.running(on: connection), references: references, on: connection)
                .union(try AssetReferenceRows.pinned(by: references, on: connection))
        }
        let store = self.store
        for file in cached.sorted(by: { $0.modified < $1.modified }) {
            guard report.cacheBytes > cap else { break }
            guard file.modified < idleBefore else { break }  // the rest is younger still
            guard let key = Self.contentKey(file), !inUse.contains(key) else { continue }
            let evicted: Bool
            if dryRun {
                evicted = true
            } else {
                // The row goes only if the file does: a claim since the listing keeps both.
                do {
                    evicted = try await postgres.withConnection { connection in
                        do {
                            return try connection.transaction { connection in
                                guard try AssetReferenceRows.forget(key: key, path: file.path, on: connection) else { return false }
                                guard try store.removeIdleBlocking(file.path, idleBefore: idleBefore) else { throw KeptInUse() }
                                return true
                            }
                        } catch is KeptInUse {
                            return false
                        }
                    }
                } catch let error as AssetError {
                    // The row stays with its file (the transaction rolled back); the next one goes.
                    report.recordFailure(file, error)
                    continue
                }
            }
            if evicted {
                report.evicted.add(file.size)
                report.cacheBytes -= file.size
            }
        }
    }

    private struct KeptInUse: Error {}

    /// Every file with whether something references it.
    private func classified() async throws -> [(AssetFile, Bool)] {
        let store = self.store
        let files = try await BlockingWork.run { store.inventoryBlocking() }
        var productionIDs: Set<UUID> = []
        var keys: Set<String> = []
        for file in files {
            switch file.area {
            case .production(let folder): if let id = UUID(uuidString: folder) { productionIDs.insert(id) }
            case .cache: if let key = Self.contentKey(file) { keys.insert(key) }
            default: break
            }
        }
        let ids = Array(productionIDs), contentKeys = Array(keys)
        let references = self.references
        let (existing, recorded, named) = try await postgres.withTransaction { connection in
            // The volume may be shared by namespaces: another namespace's production keeps its files.
            try connection.execute("SET LOCAL \(ClusterSettings.allNamespacesSetting) TO on")
            var existing: Set<UUID> = []
            for chunk in ids.chunked(5000) { existing.formUnion(try ProductionJobs.existing(chunk, on: connection)) }
            var recorded: [String: String] = [:]
            for chunk in contentKeys.chunked(5000) {
                recorded.merge(try AssetReferenceRows.contentFiles(chunk, on: connection)) { first, _ in first }
            }
            return (existing, recorded, try AssetReferenceRows.named(by: references, on: connection))
        }
        return files.map { file in
            switch file.area {
            case .production(let folder):
                // A folder not named by a production id was not made by Reparto: kept.
                guard let id = UUID(uuidString: folder) else { return (file, true) }
                return (file, existing.contains(id))
            // A cache file a declaration names directly is kept like one its content row names.
            case .cache where named.contains(file.path): return (file, true)
            case .cache: return (file, Self.contentKey(file).map { recorded[$0] == file.path } ?? false)
            case .source: return (file, named.contains(file.path))
            case .temporary: return (file, false)
            case .other: return (file, true)
            }
        }
    }

    /// `cache/<kind>/<ab>/<digest>.<ext>` → `<kind>:<digest>` (``ContentKey``'s description).
    static func contentKey(_ file: AssetFile) -> String? {
        let parts = file.path.split(separator: "/")
        guard parts.count == 4, parts[0] == "cache" else { return nil }
        let digest = (String(parts[3]) as NSString).deletingPathExtension
        guard digest.count == 64, digest.hasPrefix(parts[2]) else { return nil }
        return "\(parts[1]):\(digest)"
    }
}

extension Array {
    fileprivate func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
