import Foundation
import Testing
@testable import Assets

/// Counts calls from concurrent tasks.
actor Counter {
    var value = 0
    func increment() { value += 1 }
}

@Suite(.timeLimit(.minutes(2))) struct ContentKeyTests {
    @Test func keysAreStableAndOrderIndependent() {
        let a = ContentKey(kind: "speech", inputs: ["voice": "en+f3", "text": "Hello", "provider": "espeak-ng"])
        let b = ContentKey(kind: "speech", inputs: ["provider": "espeak-ng", "text": "Hello", "voice": "en+f3"])
        #expect(a == b)
        #expect(a.digest.count == 64)
        // Pinned values, worked out outside the code from the documented encoding (a change of
        // encoding would silently orphan every cached file): SHA-256 of
        // "reparto-content-key-v1" NUL kind NUL, then per part its UTF-8 length as a big-endian
        // UInt64 and its bytes. For kind "k", parts ["a"]:
        //   printf 'reparto-content-key-v1\0k\0\0\0\0\0\0\0\0\001a' | sha256sum
        // and for the inputs above (sorted by name: provider, text, voice), Python:
        //   hashlib.sha256(b'reparto-content-key-v1\0speech\0' + b''.join(struct.pack('>Q', len(x)) + x
        //       for x in [b'provider', b'espeak-ng', b'text', b'Hello', b'voice', b'en+f3'])).hexdigest()
        #expect(ContentKey(kind: "k", parts: ["a"]).digest == "828e8e53b6c281c2d79cd1b0278b08dd0a620f8b0e066b51293c496d73325807")
        #expect(a.digest == "350bf2e8d77a89aec5602912f5cc1c9b199ea9031d349849ee5875c74230ef99")
        #expect(ContentKey(kind: "k", parts: ["ab", "c"]) != ContentKey(kind: "k", parts: ["a", "bc"]))
        #expect(ContentKey(kind: "k", parts: ["a"]) != ContentKey(kind: "j", parts: ["a"]))
        #expect(a.relativePath(fileExtension: "wav") == "cache/speech/\(a.digest.prefix(2))/\(a.digest).wav")
    }

    @Test func reuseOrProduceProducesOnce() async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try AssetStore(root: dir.url)
        let key = ContentKey(kind: "speech", parts: ["hello"])
        let counter = Counter()
        #expect(!store.exists(key, fileExtension: "wav"))
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await store.reuseOrProduce(key, fileExtension: "wav", mimeType: "audio/wav") {
                        await counter.increment()
                        return Data("RIFF".utf8)
                    }.reused
                }
            }
            var produced = 0
            for try await reused in group where !reused { produced += 1 }
            #expect(produced == 1)
        }
        #expect(await counter.value == 1)
        #expect(store.exists(key, fileExtension: "wav"))
        let again = try await store.reuseOrProduce(key, fileExtension: "wav", mimeType: "audio/wav") { Data("other".utf8) }
        #expect(again.reused)
        #expect(again.record.sha256 == AssetStore.sha256(Data("RIFF".utf8)))
    }
}
