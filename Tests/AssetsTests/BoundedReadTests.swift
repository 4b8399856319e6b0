import Foundation
import Testing
@testable import Assets

/// A read checks the file's size against its cap before reading anything, and never reads more
/// than the cap and one byte: a sparse or growing file cannot exhaust a worker's memory.
@Suite(.timeLimit(.minutes(1))) struct BoundedReadTests {
    private func withStore(_ body: (AssetStore, URL) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try body(try AssetStore(root: root), root)
    }

    @Test func aFileAtTheCapIsReadAndOneByteMoreIsRefused() throws {
        try withStore { store, root in
            try Data(repeating: 7, count: 100).write(to: root.appendingPathComponent("a.txt"))
            #expect(try store.readBlocking("a.txt", maxBytes: 100) == Data(repeating: 7, count: 100))
            #expect(throws: AssetError.tooLarge(path: "a.txt", size: 100, limit: 99)) {
                try store.readBlocking("a.txt", maxBytes: 99)
            }
        }
    }

    /// 64 GiB of nothing: `Data(count: st_size)` would have taken the process down.
    @Test func aHugeSparseFileIsRefusedBeforeAnythingIsRead() throws {
        try withStore { store, root in
            let path = root.appendingPathComponent("sparse.fountain").path
            let fd = open(path, O_CREAT | O_WRONLY, 0o644)
            try #require(fd >= 0)
            defer { close(fd) }
            try #require(ftruncate(fd, 64 << 30) == 0)
            #expect(throws: AssetError.tooLarge(path: "sparse.fountain", size: 64 << 30, limit: AssetStore.defaultReadLimit)) {
                try store.readBlocking("sparse.fountain")
            }
            #expect(throws: AssetError.tooLarge(path: "sparse.fountain", size: 64 << 30, limit: 1 << 20)) {
                try store.readVerifiedBlocking("sparse.fountain", sha256: "", maxBytes: 1 << 20)
            }
        }
    }

    @Test func absurdCapsDoNotOverflow() throws {
        try withStore { store, root in
            try Data("hi".utf8).write(to: root.appendingPathComponent("b.txt"))
            #expect(try store.readBlocking("b.txt", maxBytes: .max) == Data("hi".utf8))
            #expect(throws: AssetError.tooLarge(path: "b.txt", size: 2, limit: 0)) { try store.readBlocking("b.txt", maxBytes: -5) }
            #expect(try store.readBlocking("b.txt", maxBytes: 2) == Data("hi".utf8))
        }
    }
}
