import Composition
@testable import AssetSweep
import Analysis
import Assets
import BookImport
import Foundation
import RepartoRuntime
import RepartoTestSupport
import TerminalText
@testable import TableRead
import Testing

/// The asset sweep against PostgreSQL and a real directory. Files are aged by moving their
/// modification time back (no sleeping).
@Suite("Asset sweep: what nothing references goes, what anything references stays", .timeLimit(.minutes(2)))
struct AssetSweepTests {
    struct Volume {
        let root: URL
        let store: AssetStore
        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-sweep-\(UUID().uuidString)")
            store = try AssetStore(root: root)
        }

        @discardableResult
        func file(_ path: String, bytes: Int = 100, age: Double) throws -> String {
            let absolute = root.path + "/" + path
            try FileManager.default.createDirectory(atPath: (absolute as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(repeating: 7, count: bytes).write(to: URL(fileURLWithPath: absolute))
            try self.age(path, by: age)
            return path
        }

        func age(_ path: String, by seconds: Double) throws {
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-seconds)], ofItemAtPath: root.path + "/" + path)
        }

        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: root.path + "/" + path) }

        /// Makes `path` impossible to remove, for root too: a directory where its lock file goes
        /// (`<dir>/.<name without extension>.lock`), so the lock cannot be opened.
        func blockRemoval(of path: String) throws {
            let lock = (path as NSString).deletingLastPathComponent + "/."
                + ((path as NSString).lastPathComponent as NSString).deletingPathExtension + ".lock"
            try FileManager.default.createDirectory(atPath: root.path + "/" + lock + "/blocker", withIntermediateDirectories: true)
        }
        func cleanup() { try? FileManager.default.removeItem(at: root) }
    }

    /// A cache file for `text` and, when `recorded`, its `generated_content` row.
    func cached(_ text: String, recorded: Bool, age: Double, bytes: Int = 100, in volume: Volume, cluster: TestCluster) async throws -> (key: String, path: String) {
        let key = ContentKey(kind: "speech", inputs: ["text": text])
        let path = try volume.file(key.relativePath(fileExtension: "wav"), bytes: bytes, age: age)
        if recorded {
            _ = try await cluster.postgres.query("""
                INSERT INTO generated_content (id, mime_type, file_path, size_bytes, sha256, content_key)
                VALUES ($1, 'audio/wav', $2, $3, 'x', $4)
                """, [UUID(), path, bytes, key.description])
        }
        return (key.description, path)
    }

    func tableRead(_ state: String, in cluster: TestCluster, source: String) async throws -> UUID {
        let id = try await cluster.client.createProduction(name: "t")
        _ = try await cluster.postgres.query("UPDATE productions SET state = $2 WHERE id = $1", [id, state])
        _ = try await cluster.postgres.query(
            "INSERT INTO table_reads (production_id, source_path, source_name) VALUES ($1, $2, 'x.fountain')", [id, source])
        return id
    }

    @Test func theSweepRemovesOnlyUnreferencedFilesPastTheGrace() async throws {
        let cluster = try await TestCluster.make()
        let volume = try Volume()
        defer { volume.cleanup() }
        let hour = 3600.0
        let kept = try await cached("kept", recorded: true, age: 5 * hour, in: volume, cluster: cluster).path
        let orphan = try await cached("orphan", recorded: false, age: 5 * hour, in: volume, cluster: cluster).path
        let young = try await cached("young", recorded: false, age: 60, in: volume, cluster: cluster).path
        let source = try volume.file("sources/aa.fountain", age: 5 * hour)
        let production = try await tableRead("completed", in: cluster, source: source)
        let orphanSource = try volume.file("sources/bb.fountain", age: 5 * hour)
        let output = try volume.file("productions/\(production.uuidString.lowercased())/table-read.wav", age: 5 * hour)
        let pruned = try volume.file("productions/\(UUID().uuidString.lowercased())/table-read.wav", age: 5 * hour)
        let handMade = try volume.file("productions/my-notes/readme.txt", age: 5 * hour)
        let request = try volume.file("requests/r1/out.wav", age: 5 * hour)
        let crashed = try volume.file("cache/speech/ff/.tmp-ff00-1", age: 5 * hour)

        let sweeper = AssetSweeper(store: volume.store, postgres: cluster.postgres, policy: AssetSweepPolicy(grace: hour), references: Kinds.assetReferences)
        let usage = try await sweeper.usage()
        #expect(usage.total == FileTally(files: 10, bytes: 1000))
        #expect(usage.unreferenced == FileTally(files: 5, bytes: 500), "orphan, young, bb.fountain, the pruned production's, the temporary")
        #expect(usage.areas.map(\.name) == ["cache/speech", "other", "productions", "sources", "temporary"])

        let dry = try await sweeper.sweep(dryRun: true)
        #expect(dry.removed == FileTally(files: 4, bytes: 400))
        #expect(dry.keptYoung == FileTally(files: 1, bytes: 100))
        #expect(volume.exists(orphan), "a dry run removes nothing")

        let report = try await sweeper.sweep()
        #expect(report.removed == dry.removed)
        #expect(report.scanned == FileTally(files: 10, bytes: 1000))
        for path in [orphan, orphanSource, pruned, crashed] { #expect(!volume.exists(path), "\(path)") }
        for path in [kept, young, source, output, handMade, request] { #expect(volume.exists(path), "\(path)") }
        #expect(!volume.exists((pruned as NSString).deletingLastPathComponent), "the pruned production's folder is gone")
        #expect(try await sweeper.sweep().removed == FileTally(), "nothing left to remove")
        await cluster.shutdown()
    }

    /// A file that cannot be removed (here its lock cannot be opened: a directory stands at the
    /// lock's path, which stops root too) is reported, and the sweep goes on with the others,
    /// however the listing orders them.
    @Test func aFileThatCannotBeRemovedDoesNotStopTheSweep() async throws {
        let cluster = try await TestCluster.make()
        let volume = try Volume()
        defer { volume.cleanup() }
        let hour = 3600.0
        var orphans: [String] = []
        for index in 0..<6 { orphans.append(try await cached("orphan \(index)", recorded: false, age: 5 * hour, in: volume, cluster: cluster).path) }
        let stuck = orphans[2]
        try volume.blockRemoval(of: stuck)

        let sweeper = AssetSweeper(store: volume.store, postgres: cluster.postgres, policy: AssetSweepPolicy(grace: hour), references: Kinds.assetReferences)
        let report = try await sweeper.sweep()
        #expect(report.removed == FileTally(files: 5, bytes: 500))
        #expect(report.failed == FileTally(files: 1, bytes: 100))
        #expect(report.failures.map(\.path) == [stuck])
        #expect(report.failures.first?.reason.isEmpty == false)
        for path in orphans where path != stuck { #expect(!volume.exists(path), "\(path)") }
        #expect(volume.exists(stuck))
        let line = HousekeepingText.sweep(report, policy: AssetSweepPolicy(grace: hour), dryRun: false)
        #expect(line.contains("could not remove 1") && line.contains(stuck), "\(line)")
        await cluster.shutdown()
    }

    /// A generate job that reuses an unreferenced file after the sweep listed it: the file stays,
    /// and the row the job commits names a file that exists.
    @Test func contentReusedWhileTheSweepRunsStays() async throws {
        let cluster = try await TestCluster.make()
        let volume = try Volume()
        defer { volume.cleanup() }
        let key = ContentKey(kind: "speech", inputs: ["text": "reused"])
        let path = try volume.file(key.relativePath(fileExtension: "wav"), age: 7200)
        let other = try await cached("other", recorded: false, age: 7200, in: volume, cluster: cluster).path
        let store = volume.store
        let sweeper = AssetSweeper(store: store, postgres: cluster.postgres, policy: AssetSweepPolicy(grace: 3600), references: Kinds.assetReferences)
        let report = try await sweeper.sweep(dryRun: false, now: Date(), afterListing: {
            let (_, reused) = try await store.reuseOrProduce(key, fileExtension: "wav", mimeType: "audio/wav") { Data() }
            #expect(reused)
        })
        #expect(report.removed == FileTally(files: 1, bytes: 100), "only the other orphan")
        #expect(volume.exists(path))
        #expect(!volume.exists(other))
        await cluster.shutdown()
    }

    @Test func theCacheCapEvictsTheLeastRecentlyUsedButNotWhatARunningTableReadNeeds() async throws {
        let cluster = try await TestCluster.make()
        let volume = try Volume()
        defer { volume.cleanup() }
        let hour = 3600.0
        let needed = try await cached("a", recorded: true, age: 5 * hour, bytes: 1000, in: volume, cluster: cluster)
        let b = try await cached("b", recorded: true, age: 4 * hour, bytes: 1000, in: volume, cluster: cluster)
        let c = try await cached("c", recorded: true, age: 3 * hour, bytes: 1000, in: volume, cluster: cluster)
        let d = try await cached("d", recorded: true, age: 2 * hour, bytes: 1000, in: volume, cluster: cluster)
        let recent = try await cached("e", recorded: true, age: 60, bytes: 1000, in: volume, cluster: cluster)
        let running = try await tableRead("running", in: cluster, source: "sources/x.fountain")
        _ = try await cluster.postgres.query("""
            INSERT INTO production_lines (production_id, chapter_index, order_index, element_type, speaker, voice, provider, text, content_key)
            VALUES ($1, 0, 0, 'dialogue', 'ANA', 'v', 'espeak-ng', 'a', $2)
            """, [running, needed.key])

        let sweeper = AssetSweeper(store: volume.store, postgres: cluster.postgres, policy: AssetSweepPolicy(grace: hour, cacheMax: 2500), references: Kinds.assetReferences)
        let dry = try await sweeper.sweep(dryRun: true)
        #expect(dry.evicted == FileTally(files: 3, bytes: 3000))
        let report = try await sweeper.sweep()
        #expect(report.evicted == FileTally(files: 3, bytes: 3000), "b, c and d, oldest first; a is needed, e was used within the grace")
        #expect(report.cacheBytes == 2000)
        for gone in [b, c, d] {
            #expect(!volume.exists(gone.path))
            #expect(try await cluster.count("SELECT count(*)::int AS n FROM generated_content WHERE content_key = $1", [gone.key]) == 0)
        }
        for stays in [needed, recent] {
            #expect(volume.exists(stays.path))
            #expect(try await cluster.count("SELECT count(*)::int AS n FROM generated_content WHERE content_key = $1", [stays.key]) == 1)
        }
        await cluster.shutdown()
    }

    /// Every production type's declared references keep their files: a book import's copy of its
    /// export (its `books.parse` may wait past the grace in a paused queue), a storyboard frame under
    /// a cache cap that would otherwise evict it, and another namespace's production folder on a
    /// volume the namespaces share.
    @Test func whatAnyProductionTypeDeclaresStaysPastTheGraceAndTheCacheCap() async throws {
        let cluster = try await TestCluster.make()
        let volume = try Volume()
        defer { volume.cleanup() }
        let hour = 3600.0
        let importSource = try volume.file("sources/ab/export.csv", age: 5 * hour)
        let orphanSource = try volume.file("sources/cd/nobody.csv", age: 5 * hour)
        let imported = try await cluster.client.createProduction(name: "import", plan: "books.import", stage: "parse")
        _ = try await cluster.postgres.query(
            "INSERT INTO book_imports (production_id, source_path, source_name) VALUES ($1, $2, 'export.csv')", [imported, importSource])

        let frame = try await cached("frame", recorded: true, age: 5 * hour, bytes: 1000, in: volume, cluster: cluster)
        let other = try await cached("other", recorded: true, age: 4 * hour, bytes: 1000, in: volume, cluster: cluster)
        let analysis = try await cluster.client.createProduction(name: "analysis", plan: "analysis", stage: "scenes")
        _ = try await cluster.postgres.query("""
            INSERT INTO analyses (production_id, source_name, text_providers, embedding_providers) VALUES ($1, 'x', '{}', '{}')
            """, [analysis])
        _ = try await cluster.postgres.query("""
            INSERT INTO analysis_scenes (production_id, scene, heading, body, frame_path, frame_key) VALUES ($1, 0, 'INT. A', 'b', $2, $3)
            """, [analysis, frame.path, frame.key])

        // A production of another namespace, invisible to this session but not to the sweep.
        let elsewhere = UUID()
        _ = try await cluster.postgres.withTransaction { connection in
            try connection.execute("SET LOCAL \(ClusterSettings.allNamespacesSetting) TO on")
            try connection.query("INSERT INTO productions (id, name, namespace) VALUES ($1, 'elsewhere', 'another-namespace')", [elsewhere])
        }
        let elsewhereFile = try volume.file("productions/\(elsewhere.uuidString.lowercased())/read.wav", age: 5 * hour)

        // Every production type's declarations, as the composition root hands them over.
        #expect(Set(Kinds.assetReferences.map(\.owner)).isSuperset(of: ["table read", "book import", "analysis"]))
        let sweeper = AssetSweeper(store: volume.store, postgres: cluster.postgres,
                                   policy: AssetSweepPolicy(grace: hour, cacheMax: 1000), references: Kinds.assetReferences)
        let report = try await sweeper.sweep()
        #expect(volume.exists(importSource), "the import's export is named by its row")
        #expect(!volume.exists(orphanSource), "nothing names this one: it goes")
        #expect(volume.exists(frame.path), "the storyboard frame is pinned")
        #expect(!volume.exists(other.path), "the cap evicts the unpinned entry")
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM generated_content WHERE content_key = $1", [frame.key]) == 1)
        #expect(volume.exists(elsewhereFile), "another namespace's production keeps its folder")
        #expect(report.evicted.files == 1)

        // Without the declarations (the sweep as it was), the same volume loses the import's
        // export and the frame: the test can fail.
        let blind = AssetSweeper(store: volume.store, postgres: cluster.postgres, policy: AssetSweepPolicy(grace: hour, cacheMax: 0), references: [])
        _ = try await blind.sweep(dryRun: false)
        #expect(!volume.exists(importSource))
        await cluster.shutdown()
    }

    /// Eviction too goes on past a file it cannot remove; that file keeps its row.
    @Test func anEvictionThatCannotRemoveItsFileKeepsTheRowAndGoesOn() async throws {
        let cluster = try await TestCluster.make()
        let volume = try Volume()
        defer { volume.cleanup() }
        let hour = 3600.0
        let oldest = try await cached("a", recorded: true, age: 5 * hour, bytes: 1000, in: volume, cluster: cluster)
        let next = try await cached("b", recorded: true, age: 4 * hour, bytes: 1000, in: volume, cluster: cluster)
        _ = try await cached("c", recorded: true, age: 3 * hour, bytes: 1000, in: volume, cluster: cluster)
        try volume.blockRemoval(of: oldest.path)

        let sweeper = AssetSweeper(store: volume.store, postgres: cluster.postgres, policy: AssetSweepPolicy(grace: hour, cacheMax: 2500), references: Kinds.assetReferences)
        let report = try await sweeper.sweep()
        #expect(report.failures.map(\.path) == [oldest.path])
        #expect(report.evicted == FileTally(files: 1, bytes: 1000), "the next oldest goes instead")
        #expect(volume.exists(oldest.path) && !volume.exists(next.path))
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM generated_content WHERE content_key = $1", [oldest.key]) == 1)
        #expect(try await cluster.count("SELECT count(*)::int AS n FROM generated_content WHERE content_key = $1", [next.key]) == 0)
        await cluster.shutdown()
    }

    @Test func theCoordinatorKeepsTheSweepScheduledAndTheCommandsSpeakOneLine() async throws {
        let cluster = try await TestCluster.make()
        let volume = try Volume()
        defer { volume.cleanup() }
        try await AssetSweepJob.keepScheduled(try AssetSweepJob.cadence(every: nil), client: cluster.client)
        let schedule = try await cluster.client.schedule(named: AssetSweepJob.scheduleName)
        #expect(schedule.definition.kind == AssetSweepJob.kind)
        #expect(schedule.definition.cadence == (try ScheduleCadence.every("1h")))
        try await AssetSweepJob.keepScheduled(try AssetSweepJob.cadence(every: "30m"), client: cluster.client)
        #expect(try await cluster.client.schedule(named: AssetSweepJob.scheduleName).definition.cadence == (try ScheduleCadence.every("30m")))
        try await AssetSweepJob.keepScheduled(try AssetSweepJob.cadence(every: "never"), client: cluster.client)
        #expect(try await cluster.client.schedules().isEmpty)

        try volume.file("sources/old.fountain", age: 7200)
        var environment = try cluster.processEnvironment()
        environment["REPARTO_ASSETS"] = volume.root.path
        let usage = try await RepartoProcess.run(["assets", "usage", "--json"], environment: environment)
        #expect(usage.status == 0, "\(usage.stderr)")
        let decoded = try JSONDecoder().decode(AssetUsage.self, from: Data(usage.stdout.utf8))
        #expect(decoded.unreferenced == FileTally(files: 1, bytes: 100))
        let dry = try await RepartoProcess.run(["assets", "sweep", "--dry-run"], environment: environment)
        #expect(dry.stdout == "would remove 1 unreferenced file (100 B); kept 0 younger than 1h\n", "\(dry.stdout)\(dry.stderr)")
        let sweep = try await RepartoProcess.run(["assets", "sweep"], environment: environment)
        #expect(sweep.stdout.hasPrefix("removed 1 unreferenced file"), "\(sweep.stderr)")
        #expect(!volume.exists("sources/old.fountain"))

        for (arguments, variable, value) in [(["assets", "sweep", "--grace", "10s"], "--grace", nil),
                                             (["assets", "sweep"], "REPARTO_CACHE_MAX", "lots"),
                                             (["assets", "sweep"], "REPARTO_ASSET_GRACE", "soon")] {
            var bad = environment
            if let value { bad[variable] = value }
            let output = try await RepartoProcess.run(arguments, environment: bad)
            let lines = output.stderr.split(separator: "\n")
            #expect(output.status != 0)
            #expect(lines.count == 1 && lines[0].hasPrefix("Error: bad \(variable)"), "\(output.stderr)")
        }
        await cluster.shutdown()
    }
}
