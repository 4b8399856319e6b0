import Foundation
import Testing
@testable import Assets

@Suite(.timeLimit(.minutes(2))) struct GeneratedContentTests {
    @Test(arguments: [
        ("text/plain", MimeCategory.text), ("text/markdown; charset=utf-8", .text), ("AUDIO/WAV", .audio),
        ("audio/mpeg", .audio), ("image/png", .image), ("video/mp4", .video), ("application/x-embedding", .embedding),
    ])
    func acceptedMimeTypes(mime: String, category: MimeCategory) throws {
        #expect(try MimeCategory(mimeType: mime) == category)
    }

    @Test(arguments: ["application/pdf", "application/octet-stream", "audio", "/wav", "text/", "", "audio/wav/x", "font/ttf"])
    func rejectedMimeTypes(mime: String) {
        #expect(throws: AssetError.unsupportedMimeType(mime)) { try MimeCategory(mimeType: mime) }
    }

    @Test func routingInlineVersusFile() async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let folder = try AssetStore(root: dir.url).folder(.production, id: "p")
        let router = GeneratedContentRouter(inlineTextLimit: 16)
        let owner = GeneratedContent.Owner.element(documentID: "p", chapterIndex: 0, orderIndex: 3)

        let small = try await router.route(Data("short".utf8), mimeType: "text/plain", owner: owner, folder: folder, name: "a.txt")
        #expect(small.body == .inline(text: "short"))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/productions/p/a.txt"))

        let big = try await router.route(Data(String(repeating: "x", count: 17).utf8), mimeType: "text/plain",
                                         owner: .document(id: "p"), folder: folder, name: "b.txt")
        guard case .file(let ref) = big.body else { Issue.record("expected a file reference"); return }
        #expect(ref.path == "productions/p/b.txt")
        #expect(ref.size == 17)
        #expect(ref.sha256 == AssetStore.sha256(Data(String(repeating: "x", count: 17).utf8)))

        let audio = try await router.route(Data([1, 2, 3]), mimeType: "audio/wav", owner: .none, folder: folder, name: "c.wav")
        guard case .file = audio.body else { Issue.record("audio must be a file"); return }
        #expect(audio.category == .audio)

        await #expect(throws: AssetError.unsupportedMimeType("application/pdf")) {
            try await router.route(Data([1]), mimeType: "application/pdf", owner: .none, folder: folder, name: "d.pdf")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/productions/p/d.pdf"))
        #expect(try await folder.metadata().files.keys.sorted() == ["b.txt", "c.wav"])
    }

    @Test func validationRejectsInconsistentRecords() {
        #expect(throws: AssetError.self) { try GeneratedContent(mimeType: "audio/wav", owner: .none, body: .inline(text: "x")) }
        #expect(throws: AssetError.self) {
            try GeneratedContent(mimeType: "image/png", owner: .none,
                                 body: .file(.init(path: "../x.png", size: 1, sha256: String(repeating: "a", count: 64))))
        }
        #expect(throws: AssetError.self) {
            try GeneratedContent(mimeType: "image/png", owner: .none, body: .file(.init(path: "x.png", size: 1, sha256: "abc")))
        }
        #expect(throws: AssetError.self) { try GeneratedContent(mimeType: "text/plain", owner: .identifier(""), body: .inline(text: "x")) }
    }

    @Test func codableRoundTrip() throws {
        let record = try GeneratedContent(
            mimeType: "application/x-embedding", owner: .element(documentID: "d", chapterIndex: 1, orderIndex: 2),
            body: .file(.init(path: "productions/d/e.bin", size: 12, sha256: String(repeating: "0", count: 64))),
            createdAt: Date(timeIntervalSince1970: 0))
        let data = try JSONEncoder().encode(record)
        #expect(try JSONDecoder().decode(GeneratedContent.self, from: data) == record)
    }
}
