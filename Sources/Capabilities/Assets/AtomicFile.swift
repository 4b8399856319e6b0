#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Low-level POSIX helpers for crash-safe writes. All functions block on disk I/O: call them
/// from a thread that is not part of Swift's cooperative pool (``AssetStore``'s async API does).
enum AtomicFile {
    /// Writes `data` to `directory/name` so that readers see either the old file or the complete
    /// new one: temporary file in the same directory, `fsync` it, `rename` over the target,
    /// `fsync` the directory. On any failure the temporary file is removed.
    ///
    /// - Parameter relative: the path shown in errors (relative to the store root).
    static func write(_ data: Data, directory: String, name: String, relative: String) throws {
        let tmpName = ".tmp-\(name.prefix(64))-\(UInt64.random(in: 0...UInt64.max))"
        let tmpPath = directory + "/" + tmpName
        let finalPath = directory + "/" + name
        let fd = open(tmpPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        if fd < 0 { throw AssetError(errno: errno, operation: "create", path: relative) }
        var ok = false
        defer { if !ok { unlink(tmpPath) } }
        do {
            defer { close(fd) }
            try writeAll(fd: fd, data: data, relative: relative)
            if fsync(fd) != 0 { throw AssetError(errno: errno, operation: "fsync", path: relative) }
        }
        if rename(tmpPath, finalPath) != 0 { throw AssetError(errno: errno, operation: "rename", path: relative) }
        ok = true
        try syncDirectory(directory, relative: relative)
    }

    static func writeAll(fd: Int32, data: Data, relative: String) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard var base = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let n = Glibc.write(fd, base, min(remaining, 1 << 30))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw AssetError(errno: errno, operation: "write", path: relative)
                }
                if n == 0 { throw AssetError.diskFull(path: relative) }
                remaining -= n
                base += n
            }
        }
    }

    /// Removes the temporary files ``write(_:directory:name:relative:)`` left for a target whose
    /// name starts with `prefix` (a crashed writer's). Best effort: errors are ignored.
    static func removeTemporaries(in directory: String, startingWith prefix: String) {
        let marker = ".tmp-" + prefix.prefix(64)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(marker) { unlink(directory + "/" + name) }
    }

    /// `fsync` on the directory itself, so the rename survives a crash.
    static func syncDirectory(_ directory: String, relative: String) throws {
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd < 0 { throw AssetError(errno: errno, operation: "open directory", path: relative) }
        defer { close(dfd) }
        if fsync(dfd) != 0 && errno != EINVAL {  // some file systems refuse directory fsync with EINVAL
            throw AssetError(errno: errno, operation: "fsync directory", path: relative)
        }
    }

    /// `realpath(3)`, or nil if the path does not exist.
    static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Holds an exclusive `flock` on `path` (created if missing) while `body` runs. Blocking.
    static func withLock<T>(_ path: String, relative: String, _ body: () throws -> T) throws -> T {
        let fd = try lock(path, relative: relative)
        defer { unlock(fd) }
        return try body()
    }

    /// Takes an exclusive `flock` on `path` and returns the descriptor that holds it. Blocking.
    static func lock(_ path: String, relative: String) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        if fd < 0 { throw AssetError(errno: errno, operation: "open lock", path: relative) }
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let code = errno
            close(fd)
            throw AssetError(errno: code, operation: "lock", path: relative)
        }
        return fd
    }

    static func unlock(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
        close(fd)
    }
}
