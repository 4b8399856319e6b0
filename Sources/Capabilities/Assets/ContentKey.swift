import Crypto
import Foundation

/// A stable key for content-addressed reuse: the SHA-256 of a canonical encoding of every input
/// that determines the output (e.g. provider, voice, language, text, options).
///
/// The encoding is length-prefixed, so `["ab", "c"]` and `["a", "bc"]` give different keys,
/// and independent of dictionary order and of Swift's per-process randomized `hashValue`.
public struct ContentKey: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The kind of content (a single sanitized path component, e.g. `speech`).
    public let kind: String
    /// Lower-case hex SHA-256 of the inputs.
    public let digest: String

    /// A key from named inputs; the order of the dictionary does not matter.
    public init(kind: String, inputs: [String: String]) {
        self.init(kind: kind, parts: inputs.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] })
    }

    /// A key from ordered parts.
    public init(kind: String, parts: [String]) {
        self.kind = AssetPath.sanitize(kind)
        var hasher = SHA256()
        hasher.update(data: Data("reparto-content-key-v1\u{0}\(self.kind)\u{0}".utf8))
        for part in parts {
            let bytes = Data(part.utf8)
            var length = UInt64(bytes.count).bigEndian
            withUnsafeBytes(of: &length) { hasher.update(bufferPointer: $0) }
            hasher.update(data: bytes)
        }
        self.digest = HexDigest.string(hasher.finalize())
    }

    /// `cache/<kind>/<first two hex digits>/<digest>.<ext>`, relative to the store root.
    public func relativePath(fileExtension: String) -> String {
        let ext = AssetPath.sanitize(fileExtension)
        return "cache/\(kind)/\(digest.prefix(2))/\(digest).\(ext)"
    }

    public var description: String { "\(kind):\(digest)" }
}

extension AssetStore {
    /// The stable path for `key`.
    public func path(for key: ContentKey, fileExtension: String) -> String {
        key.relativePath(fileExtension: fileExtension)
    }

    /// True when the content for `key` has already been produced.
    public func exists(_ key: ContentKey, fileExtension: String) -> Bool {
        exists(key.relativePath(fileExtension: fileExtension))
    }

    /// Returns the stored content for `key`, or runs `produce` once, stores its output atomically
    /// and returns that. Producers of the same key are serialized with a `flock` on a per-key lock
    /// file (across tasks, processes and hosts sharing the volume), so the same content is never
    /// produced twice; the lock is taken off the cooperative pool.
    ///
    /// - Returns: the record and whether it was reused (true) or produced now (false).
    public func reuseOrProduce(
        _ key: ContentKey, fileExtension: String, mimeType: String,
        produce: @Sendable () async throws -> Data
    ) async throws -> (record: AssetRecord, reused: Bool) {
        let relative = key.relativePath(fileExtension: fileExtension)
        // Claimed (under the key's lock), existing content is safe from a sweep for its grace.
        if try await claim(relative), let record = try await existingRecord(relative, mimeType: mimeType) { return (record, true) }
        // The same lock a claim and a sweep's removal take (`<dir>/.<digest>.lock`).
        let (directory, lockPath) = try await Self.offPool { () throws -> (String, String) in
            let (directory, name) = try prepareParent(relative)
            guard let lock = Self.lockPath(of: directory + "/" + name) else { throw AssetError.invalidName(relative) }
            return (directory, lock)
        }
        let fd = try await Self.offPool { try AtomicFile.lock(lockPath, relative: relative) }
        defer { AtomicFile.unlock(fd) }  // LOCK_UN and close do not block
        let absolute = try absolutePath(relative)
        if Self.touch(absolute), let record = try await existingRecord(relative, mimeType: mimeType) { return (record, true) }
        // A producer of this key that crashed mid-write (kill -9, power loss) left its temporary
        // file; holding the key's lock, no live writer owns one, so they can go.
        let digest = key.digest
        try await Self.offPool { AtomicFile.removeTemporaries(in: directory, startingWith: digest) }
        let data = try await produce()
        let record = try await write(data, to: relative, mimeType: mimeType)
        return (record, false)
    }

    private func existingRecord(_ relative: String, mimeType: String) async throws -> AssetRecord? {
        guard exists(relative) else { return nil }
        let data = try await read(relative)
        return AssetRecord(path: relative, size: Int64(data.count), sha256: Self.sha256(data),
                           mimeType: mimeType, createdAt: Date())
    }
}
