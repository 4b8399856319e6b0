@testable import Assets
import Foundation
import Testing

/// Claims and idle removals on a real directory (no servers): the order in which a sweep and a
/// job that reuses a file meet decides, never a race.
@Suite("Asset lifecycle: inventory, claims, idle removal", .timeLimit(.minutes(1)))
struct AssetLifecycleTests {
    func age(_ path: String, in store: AssetStore, by seconds: Double) throws {
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-seconds)],
                                              ofItemAtPath: store.resolvedRoot + "/" + path)
    }

    @Test func pathsFallIntoTheirAreas() {
        #expect(AssetArea(path: "productions/abc/table-read.wav") == .production(folder: "abc"))
        #expect(AssetArea(path: "productions/abc") == .other)
        #expect(AssetArea(path: "sources/ab12.fountain") == .source)
        #expect(AssetArea(path: "cache/speech/ab/ab12.wav") == .cache(kind: "speech"))
        #expect(AssetArea(path: "cache/speech/ab/.tmp-ab12-99") == .temporary)
        #expect(AssetArea(path: "requests/r1/out.wav") == .other)
        #expect(AssetArea(path: "notes.txt").name == "other")
        #expect(AssetArea(path: "cache/image/cd/cd34.png").name == "cache/image")
    }

    @Test func theInventoryListsFilesWithTheirSizesButNoLockFiles() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        try store.writeBlocking(Data(count: 10), to: "sources/a.fountain", mimeType: "text/plain")
        try store.folder(.production, id: "p1").writeBlocking(Data(count: 20), name: "audio/x.wav", mimeType: "audio/wav")
        #expect(try store.claimBlocking("sources/a.fountain"))
        _ = FileManager.default.createFile(atPath: dir.path + "/sources/.tmp-b-1", contents: Data(count: 3))
        let files = Dictionary(uniqueKeysWithValues: store.inventoryBlocking().map { ($0.path, $0.size) })
        #expect(files == ["sources/a.fountain": 10, "sources/.tmp-b-1": 3, "productions/p1/audio/x.wav": 20,
                          "productions/p1/metadata.json": files["productions/p1/metadata.json"] ?? -1])
        #expect(dir.allFiles().contains("sources/.a.lock"), "the claim took the file's lock")
    }

    @Test func aClaimBeforeTheRemovalKeepsTheFileAndOneAfterItFindsItGone() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        let path = "cache/speech/ab/ab12.wav"
        try store.writeBlocking(Data("audio".utf8), to: path, mimeType: "audio/wav")
        try age(path, in: store, by: 7200)
        let idleBefore = Date().addingTimeInterval(-3600)

        #expect(try store.claimBlocking(path), "a job reuses the file")
        #expect(try !store.removeIdleBlocking(path, idleBefore: idleBefore), "claimed just now: not idle")
        #expect(store.exists(path))

        try age(path, in: store, by: 7200)
        #expect(try store.removeIdleBlocking(path, idleBefore: idleBefore))
        #expect(!store.exists(path))
        #expect(!dir.allFiles().contains("cache/speech/ab/.ab12.lock"), "the lock file went with it")
        #expect(try !store.claimBlocking(path), "a claim after the removal says to produce it again")
        #expect(try !store.removeIdleBlocking(path, idleBefore: idleBefore), "nothing left to remove")
    }

    @Test func aSourceIsStoredByItsContentAndAResubmissionOnlyClaimsIt() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        let data = Data("Title: Test\n\nINT. HALL - DAY\n".utf8)
        let path = try store.storeSourceBlocking(data, extension: "Fountain?", mimeType: "text/plain")
        #expect(path == "sources/\(AssetStore.sha256(data)).\(AssetPath.sanitize("Fountain?"))")
        #expect(try store.readBlocking(path) == data)
        try age(path, in: store, by: 7200)
        let idleBefore = Date().addingTimeInterval(-3600)
        #expect(try store.storeSourceBlocking(data, extension: "Fountain?", mimeType: "text/plain") == path)
        #expect(try !store.removeIdleBlocking(path, idleBefore: idleBefore), "the resubmission claimed it: not idle")
        #expect(try store.storeSourceBlocking(Data("other".utf8), extension: "csv", mimeType: "text/csv") != path)
    }

    @Test func aRemovedProductionFolderGoesWhenItsLastFileGoes() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        let folder = store.folder(.production, id: "p2")
        try folder.writeBlocking(Data(count: 5), name: "report.json", mimeType: "application/json")
        let idleBefore = Date().addingTimeInterval(-60)
        for name in ["report.json", "metadata.json"] { try age("productions/p2/\(name)", in: store, by: 120) }
        #expect(try store.removeIdleBlocking("productions/p2/report.json", idleBefore: idleBefore))
        #expect(FileManager.default.fileExists(atPath: dir.path + "/productions/p2"), "the sidecar is still there")
        #expect(try store.removeIdleBlocking("productions/p2/metadata.json", idleBefore: idleBefore))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/productions/p2"))
    }

    @Test func aStaleTemporaryFileGoesAndAYoungOneStays() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        try store.writeBlocking(Data(count: 1), to: "cache/speech/cd/keep.wav", mimeType: "audio/wav")
        for name in [".tmp-old-1", ".tmp-new-2"] {
            _ = FileManager.default.createFile(atPath: dir.path + "/cache/speech/cd/\(name)", contents: Data(count: 4))
        }
        try age("cache/speech/cd/.tmp-old-1", in: store, by: 7200)
        let idleBefore = Date().addingTimeInterval(-3600)
        #expect(try store.removeIdleBlocking("cache/speech/cd/.tmp-old-1", idleBefore: idleBefore))
        #expect(try !store.removeIdleBlocking("cache/speech/cd/.tmp-new-2", idleBefore: idleBefore))
        #expect(Set(dir.allFiles().filter { $0.contains(".tmp-") }) == ["cache/speech/cd/.tmp-new-2"])
    }

    /// Reuse claims: reused content is young again; content a sweep removed is produced again.
    @Test func reuseRefreshesContentAndProducesAgainWhatASweepRemoved() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        let key = ContentKey(kind: "speech", inputs: ["text": "hello"])
        let path = key.relativePath(fileExtension: "wav")
        let first = try await store.reuseOrProduce(key, fileExtension: "wav", mimeType: "audio/wav") { Data("v1".utf8) }
        #expect(!first.reused)
        try age(path, in: store, by: 7200)
        let second = try await store.reuseOrProduce(key, fileExtension: "wav", mimeType: "audio/wav") { Data("v2".utf8) }
        #expect(second.reused)
        let modified = try FileManager.default.attributesOfItem(atPath: try store.absolutePath(path))[.modificationDate] as? Date
        #expect(modified.map { $0 > Date().addingTimeInterval(-600) } == true, "the reuse claimed it")

        try age(path, in: store, by: 7200)
        #expect(try await store.removeIdle(path, idleBefore: Date().addingTimeInterval(-3600)))
        let third = try await store.reuseOrProduce(key, fileExtension: "wav", mimeType: "audio/wav") { Data("v3".utf8) }
        #expect(!third.reused)
        #expect(try await store.read(path) == Data("v3".utf8))
    }
}
