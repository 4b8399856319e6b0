import Assets
import Foundation
import Testing

@Suite("streamed asset writes", .timeLimit(.minutes(2)))
struct AssetStreamWriterTests {
    static func store() throws -> (AssetStore, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return (try AssetStore(root: root), root)
    }

    static func entries(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test func commitMakesTheRewrittenBytesVisibleWithTheirChecksum() throws {
        let (store, root) = try Self.store()
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = try store.beginStream(to: "productions/p/out.bin", mimeType: "application/octet-stream")
        try writer.append(Data("HEAD".utf8))
        try writer.append(Data(repeating: 7, count: 3 << 20))
        #expect(Self.entries(root.appendingPathComponent("productions/p")).allSatisfy { $0.hasPrefix(".tmp-") },
                "nothing visible before the commit")
        try writer.write(Data("head".utf8), at: 0)
        let record = try writer.commit()
        var expected = Data("head".utf8)
        expected.append(Data(repeating: 7, count: 3 << 20))
        #expect(try store.readBlocking("productions/p/out.bin") == expected)
        #expect(record.sha256 == AssetStore.sha256(expected) && record.size == Int64(expected.count))
        #expect(Self.entries(root.appendingPathComponent("productions/p")) == ["out.bin"])
        #expect(throws: AssetError.self) { try writer.append(Data([1])) }
    }

    @Test func abortLeavesNothingAndKeepsAnOlderFile() throws {
        let (store, root) = try Self.store()
        defer { try? FileManager.default.removeItem(at: root) }
        try store.writeBlocking(Data("old".utf8), to: "a/file.wav", mimeType: "audio/wav")
        let writer = try store.beginStream(to: "a/file.wav", mimeType: "audio/wav")
        try writer.append(Data("new and unfinished".utf8))
        writer.abort()
        #expect(try store.readBlocking("a/file.wav") == Data("old".utf8))
        #expect(Self.entries(root.appendingPathComponent("a")) == ["file.wav"])
    }

    @Test func pathsOutsideTheRootAreRefused() throws {
        let (store, root) = try Self.store()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(throws: AssetError.self) { _ = try store.beginStream(to: "../escape.wav", mimeType: "audio/wav") }
        #expect(throws: AssetError.self) { _ = try store.beginStream(to: "/abs.wav", mimeType: "audio/wav") }
    }
}
