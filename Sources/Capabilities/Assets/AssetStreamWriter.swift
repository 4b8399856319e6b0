#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import Foundation

/// Writes a large asset piece by piece with the same guarantees as
/// ``AssetStore/writeBlocking(_:to:mimeType:)``: the bytes go to a temporary file next to the
/// target, and only ``commit()`` (fsync, checksum, rename, directory fsync) makes them visible.
/// Anything short of a commit, including an error or ``abort()``, leaves no file behind.
///
/// For outputs too large to hold in memory, such as an assembled table read. Blocking: use it
/// from a thread that is not part of Swift's cooperative pool.
///
/// ```swift
/// let writer = try store.beginStream(to: "productions/42/table-read.wav", mimeType: "audio/wav")
/// try writer.append(header)          // may be rewritten later with write(_:at:)
/// try writer.append(samples)
/// let record = try writer.commit()
/// ```
public final class AssetStreamWriter {
    private let relativePath: String
    private let mimeType: String
    private let directory: String
    private let name: String
    private let temporaryPath: String
    private var fd: Int32
    private var finished = false
    /// Bytes appended so far.
    public private(set) var size: Int64 = 0

    init(relativePath: String, mimeType: String, directory: String, name: String) throws {
        self.relativePath = relativePath
        self.mimeType = mimeType
        self.directory = directory
        self.name = name
        temporaryPath = directory + "/.tmp-\(name.prefix(64))-\(UInt64.random(in: 0...UInt64.max))"
        fd = open(temporaryPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        if fd < 0 { throw AssetError(errno: errno, operation: "create", path: relativePath) }
    }

    deinit { abort() }

    /// Appends `data` at the end.
    public func append(_ data: Data) throws {
        try checkOpen()
        do { try AtomicFile.writeAll(fd: fd, data: data, relative: relativePath) } catch {
            abort()
            throw error
        }
        size += Int64(data.count)
    }

    /// Overwrites bytes already appended (a header whose sizes are known only at the end).
    public func write(_ data: Data, at offset: Int64) throws {
        try checkOpen()
        precondition(offset >= 0 && offset + Int64(data.count) <= size, "write(_:at:) may only rewrite appended bytes")
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var done = 0
            while done < buffer.count {
                let n = pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    abort()
                    throw AssetError(errno: code, operation: "write", path: relativePath)
                }
                done += n
            }
        }
    }

    /// Makes the file durable and visible at its path, and returns its record.
    public func commit() throws -> AssetRecord {
        try checkOpen()
        do {
            if fsync(fd) != 0 { throw AssetError(errno: errno, operation: "fsync", path: relativePath) }
            let digest = try checksum()
            close(fd)
            fd = -1
            if rename(temporaryPath, directory + "/" + name) != 0 {
                throw AssetError(errno: errno, operation: "rename", path: relativePath)
            }
            finished = true
            try AtomicFile.syncDirectory(directory, relative: relativePath)
            return AssetRecord(path: relativePath, size: size, sha256: digest, mimeType: mimeType, createdAt: AssetStore.now())
        } catch {
            abort()
            throw error
        }
    }

    /// Discards everything written; the target path is untouched. Safe to call twice.
    public func abort() {
        guard !finished else { return }
        finished = true
        if fd >= 0 { close(fd) }
        fd = -1
        unlink(temporaryPath)
    }

    private func checkOpen() throws {
        if finished { throw AssetError.invalidRecord(reason: "\(relativePath): stream already committed or aborted") }
    }

    /// SHA-256 of the whole temporary file, read back in 1 MiB chunks.
    private func checksum() throws -> String {
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: off_t = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw AssetError(errno: errno, operation: "read", path: relativePath)
            }
            if n == 0 { break }
            hasher.update(data: buffer[0..<n])
            offset += off_t(n)
        }
        return HexDigest.string(hasher.finalize())
    }
}

extension AssetStore {
    /// Starts a streamed atomic write of `relativePath` (see ``AssetStreamWriter``). Blocking.
    @available(*, noasync, message: "blocks on the file system; call it off the cooperative pool")
    public func beginStream(to relativePath: String, mimeType: String) throws -> AssetStreamWriter {
        let (directory, name) = try prepareParent(relativePath)
        if name == FolderMetadata.fileName { throw AssetError.invalidName(relativePath) }
        return try AssetStreamWriter(relativePath: relativePath, mimeType: mimeType, directory: directory, name: name)
    }
}
