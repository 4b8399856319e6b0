import AssetSweep
import SpeechJobs
import Assets
import Composition
import Foundation
import RepartoConfiguration
import RepartoRuntime
import RepartoTestSupport
@testable import TableRead
import Testing

/// The `assets.sweep` job as the coordinator's schedule runs it: enqueued like any job, run by a
/// worker that mounts the asset volume, its report stored as the job's result.
@Suite("assets.sweep on a worker", .timeLimit(.minutes(2)))
struct AssetSweepJobTests {
    @Test func aWorkerRunsTheSweepAndReportsWhatItRemoved() async throws {
        let cluster = try await TestCluster.make()
        let root = cluster.assetsRoot
        let hour = 3600.0
        // One file a row references, one nothing references, one too young to go: all past or
        // inside the grace by their modification time (no sleeping).
        func file(_ path: String, age: Double) throws -> String {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(repeating: 7, count: 100).write(to: url)
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: url.path)
            return path
        }
        let keptKey = ContentKey(kind: "speech", inputs: ["text": "kept"])
        let kept = try file(keptKey.relativePath(fileExtension: "wav"), age: 5 * hour)
        _ = try await cluster.postgres.query("""
            INSERT INTO generated_content (id, mime_type, file_path, size_bytes, sha256, content_key)
            VALUES ($1, 'audio/wav', $2, 100, 'x', $3)
            """, [UUID(), kept, keptKey.description])
        let orphan = try file(ContentKey(kind: "speech", inputs: ["text": "orphan"]).relativePath(fileExtension: "wav"), age: 5 * hour)
        let young = try file(ContentKey(kind: "speech", inputs: ["text": "young"]).relativePath(fileExtension: "wav"), age: 60)

        let registry = JobRegistry()
        // Only the grace: nothing of the developer's environment (a REPARTO_CACHE_MAX) changes the policy.
        AssetSweepJob.register(in: registry, assetsRoot: root, postgres: cluster.postgres,
                               configuration: ConfigurationValues(environment: ["REPARTO_ASSET_GRACE": "1h"]), references: Kinds.assetReferences)
        let worker = cluster.startWorker(registry: registry, concurrency: 1, prefetch: 1)

        let id = try await cluster.client.enqueue(AssetSweepJob())
        let done = try await cluster.client.awaitJob(id, timeout: 60)
        #expect(done.state == .succeeded, "\(done.lastError ?? "")")
        let report = try #require(try done.decodeResult(AssetSweepReport.self))
        #expect(report.removed == FileTally(files: 1, bytes: 100), "the orphan only")
        #expect(report.keptYoung == FileTally(files: 1, bytes: 100))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(orphan).path))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(kept).path), "a referenced file stays")
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(young).path), "a young file stays")

        try await worker.stop()
        await cluster.shutdown()
    }
}
