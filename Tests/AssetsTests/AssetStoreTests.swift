import Foundation
import Testing
@testable import Assets
#if canImport(Glibc)
import Glibc
#endif

@Suite(.timeLimit(.minutes(2))) struct AssetStoreTests {
    @Test func writeReadRoundTripWithChecksumAndMetadata() async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        let folder = store.folder(.production, id: "Prod 42")
        let record = try await folder.write(Data("abc".utf8), name: "notes/a.txt", mimeType: "text/plain")
        #expect(record.path == "productions/Prod-42/notes/a.txt")
        #expect(record.size == 3)
        #expect(record.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try await store.read(record.path) == Data("abc".utf8))
        #expect(try await store.readVerified(record.path, sha256: record.sha256) == Data("abc".utf8))

        let meta = try await folder.metadata()
        #expect(meta.id == "Prod 42")
        #expect(meta.kind == .production)
        #expect(meta.files["notes/a.txt"] == record)
        // The sidecar is real JSON on disk.
        let raw = try Data(contentsOf: dir.url.appendingPathComponent("productions/Prod-42/metadata.json"))
        let decoded = try JSONSerialization.jsonObject(with: raw) as? [String: Any]
        #expect((decoded?["files"] as? [String: Any])?["notes/a.txt"] != nil)
    }

    @Test func concurrentFolderWritesKeepEveryMetadataEntry() async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let folder = try AssetStore(root: dir.url).folder(.request, id: "r1")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<16 {
                group.addTask { _ = try await folder.write(Data("\(i)".utf8), name: "f\(i).txt", mimeType: "text/plain") }
            }
            try await group.waitForAll()
        }
        #expect(try await folder.metadata().files.count == 16)
    }

    @Test func overwriteReplacesContentAtomically() async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        try await store.write(Data("one".utf8), to: "requests/x/a.bin", mimeType: "audio/wav")
        try await store.write(Data("two!".utf8), to: "requests/x/a.bin", mimeType: "audio/wav")
        #expect(try await store.read("requests/x/a.bin") == Data("two!".utf8))
        #expect(!dir.allFiles().contains { $0.contains(".tmp-") })
    }

    @Test func checksumMismatchIsDetected() async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        let record = try await store.write(Data("hello".utf8), to: "requests/x/h.txt", mimeType: "text/plain")
        try Data("jello".utf8).write(to: dir.url.appendingPathComponent(record.path))
        await #expect(throws: AssetError.self) { try await store.readVerified(record.path, sha256: record.sha256) }
    }

    @Test func failingWriteLeavesNoTemporaryFile() async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        // The target is an existing non-empty directory: the temp file is written, then rename fails.
        try FileManager.default.createDirectory(atPath: dir.path + "/requests/x/taken/sub", withIntermediateDirectories: true)
        await #expect(throws: AssetError.self) {
            try await store.write(Data(repeating: 7, count: 100_000), to: "requests/x/taken", mimeType: "audio/wav")
        }
        #expect(!dir.allFiles().contains { $0.contains(".tmp-") })
    }

    @Test(arguments: ["../outside.txt", "/etc/passwd", "a/../../b.txt", "requests/../../x"])
    func lexicalEscapesAreRejected(path: String) async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        await #expect(throws: AssetError.pathEscapesRoot(path)) {
            try await store.write(Data("x".utf8), to: path, mimeType: "text/plain")
        }
        await #expect(throws: AssetError.pathEscapesRoot(path)) { try await store.read(path) }
    }

    @Test(arguments: ["", "a//b", "./a", "a/.", "nul\u{0}byte"])
    func malformedNamesAreRejected(path: String) async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        await #expect(throws: AssetError.invalidName(path)) {
            try await store.write(Data("x".utf8), to: path, mimeType: "text/plain")
        }
    }

    @Test func symlinkEscapeIsRejectedForWriteAndRead() async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let outside = try TempDir(); defer { outside.cleanup() }
        try "secret".write(toFile: outside.path + "/secret.txt", atomically: true, encoding: .utf8)
        let store = try AssetStore(root: dir.url)
        try FileManager.default.createDirectory(atPath: dir.path + "/productions", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/productions/evil", withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/productions/link.txt",
                                                   withDestinationPath: outside.path + "/secret.txt")

        await #expect(throws: AssetError.pathEscapesRoot("productions/evil/x.txt")) {
            try await store.write(Data("x".utf8), to: "productions/evil/x.txt", mimeType: "text/plain")
        }
        await #expect(throws: AssetError.pathEscapesRoot("productions/evil/new/x.txt")) {
            try await store.write(Data("x".utf8), to: "productions/evil/new/x.txt", mimeType: "text/plain")
        }
        #expect(outside.allFiles() == ["secret.txt"])  // nothing was created outside
        await #expect(throws: AssetError.pathEscapesRoot("productions/link.txt")) { try await store.read("productions/link.txt") }
        #expect(!store.exists("productions/link.txt"))

        // A symlink that stays inside the root is fine.
        try await store.write(Data("in".utf8), to: "productions/real/a.txt", mimeType: "text/plain")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/productions/alias", withDestinationPath: dir.path + "/productions/real")
        #expect(try await store.read("productions/alias/a.txt") == Data("in".utf8))
    }

    @Test func sanitizeProducesOneSafeComponent() {
        for input in ["../../etc/passwd", "..", ".hidden", "a/b\\c", "", "Le Café: Nuit #2"] {
            let s = AssetPath.sanitize(input)
            #expect(!s.isEmpty)
            #expect(!s.contains("/"))
            #expect(!s.hasPrefix("."))
            #expect((try? AssetPath.components(of: s)) == [s])
        }
        #expect(AssetPath.sanitize("Le Café: Nuit #2") == "Le-Café--Nuit--2")
    }

    @Test func errnoMapping() {
        #expect(AssetError(errno: ENOSPC, operation: "write", path: "p") == .diskFull(path: "p"))
        #expect(AssetError(errno: EDQUOT, operation: "write", path: "p") == .diskFull(path: "p"))
        #expect(AssetError(errno: EROFS, operation: "create", path: "p") == .readOnly(path: "p"))
        #expect(AssetError(errno: EACCES, operation: "create", path: "p") == .readOnly(path: "p"))
        #expect(AssetError(errno: EIO, operation: "write", path: "p").isRetryable)
        #expect(AssetError.diskFull(path: "p").isRetryable, "space may be freed: retried with backoff")
        #expect(!AssetError.pathEscapesRoot("../x").isRetryable)
    }

    /// Runs where a tmpfs can be mounted, and always in CI (where failing to mount fails the test).
    @Test(.enabled(if: Mounts.available || Mounts.required, "needs root and mount(8)"))
    func fullDiskIsTypedAndLeavesNothingBehind() async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        #expect(Mounts.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir.path]))
        defer { Mounts.run(["umount", dir.path]) }
        let store = try AssetStore(root: dir.url)
        await #expect(throws: AssetError.diskFull(path: "requests/x/big.wav")) {
            try await store.write(Data(repeating: 1, count: 1 << 20), to: "requests/x/big.wav", mimeType: "audio/wav")
        }
        #expect(!dir.allFiles().contains { $0.contains(".tmp-") })
        #expect(!store.exists("requests/x/big.wav"))
    }

    /// As a user, a directory without write permission; as root (who ignores permission bits) a
    /// read-only tmpfs, so root without mount(8) skips it visibly, except where it is required.
    @Test(.enabled(if: getuid() != 0 || Mounts.available || Mounts.required, "root needs mount(8) for a read-only tmpfs"))
    func readOnlyRootIsTyped() async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        if getuid() == 0 {
            #expect(Mounts.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", dir.path]))
        } else {
            chmod(dir.path, 0o555)
        }
        defer {
            if getuid() == 0 { Mounts.run(["umount", dir.path]) } else { chmod(dir.path, 0o755) }
        }
        await #expect(throws: AssetError.readOnly(path: "requests/x/a.txt")) {
            try await store.write(Data("x".utf8), to: "requests/x/a.txt", mimeType: "text/plain")
        }
    }
}
