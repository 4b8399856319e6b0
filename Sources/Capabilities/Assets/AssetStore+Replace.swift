#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import Foundation

// Files another program writes (ffmpeg's normalized audio): it writes a temporary file beside the
// target, which then replaces the target atomically like every other write.
extension AssetStore {
    /// A temporary path beside `relativePath` (`.tmp-<name>-<random>`, which a sweep removes if a
    /// crash leaves it), for a program to write; its folder exists.
    @available(*, noasync, message: "creates folders; run it off the cooperative pool")
    public func temporaryPathBlocking(beside relativePath: String) throws -> String {
        let (directory, name) = try prepareParent(relativePath)
        return directory + "/.tmp-\(name.prefix(64))-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// Moves the finished file at `temporary` (from ``temporaryPathBlocking(beside:)``) over
    /// `relativePath`: `fsync`, `rename`, `fsync` of the folder; returns its record (size and
    /// SHA-256 read back by streaming). The temporary file is removed on failure.
    @available(*, noasync, message: "blocks on fsync and reads the file; run it off the cooperative pool")
    public func replaceBlocking(_ relativePath: String, with temporary: String, mimeType: String) throws -> AssetRecord {
        var done = false
        defer { if !done { unlink(temporary) } }
        let (directory, name) = try prepareParent(relativePath)
        guard (temporary as NSString).deletingLastPathComponent == directory else { throw AssetError.pathEscapesRoot(temporary) }
        let fd = open(temporary, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 { throw AssetError(errno: errno, operation: "open", path: relativePath) }
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n < 0 { if errno == EINTR { continue }; throw AssetError(errno: errno, operation: "read", path: relativePath) }
                if n == 0 { break }
                buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
                size += Int64(n)
            }
            if fsync(fd) != 0 { throw AssetError(errno: errno, operation: "fsync", path: relativePath) }
        }
        if rename(temporary, directory + "/" + name) != 0 { throw AssetError(errno: errno, operation: "rename", path: relativePath) }
        done = true
        try AtomicFile.syncDirectory(directory, relative: relativePath)
        return AssetRecord(path: relativePath, size: size, sha256: HexDigest.string(hasher.finalize()), mimeType: mimeType,
                           createdAt: Self.now())
    }
}
