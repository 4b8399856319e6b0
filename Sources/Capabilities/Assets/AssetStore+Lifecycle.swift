#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

// The volume's lifecycle: listing files, claiming one for use, removing one that stayed idle.
// A claim and a removal of the same file exclude each other through the file's lock
// (`<dir>/.<stem>.lock`, the lock ``reuseOrProduce(_:fileExtension:mimeType:produce:)`` takes for
// a content key), so a file is either claimed before the removal looks (and is then too young to
// go) or found missing by the claim (and produced again).
extension AssetStore {
    /// Every regular file below the root except lock files, with size and modification time.
    /// Blocking: it walks the whole volume.
    @available(*, noasync, message: "walks the volume; run it off the cooperative pool")
    public func inventoryBlocking() -> [AssetFile] {
        var files: [AssetFile] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let directory = relative.isEmpty ? resolvedRoot : resolvedRoot + "/" + relative
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for name in names {
                let path = relative.isEmpty ? name : relative + "/" + name
                var st = stat()
                guard lstat(resolvedRoot + "/" + path, &st) == 0 else { continue }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: pending.append(path)
                case S_IFREG where !Self.isLockFile(name):
                    files.append(AssetFile(path: path, size: Int64(st.st_size), modified: Self.modified(st)))
                default: continue
                }
            }
        }
        return files
    }

    /// Marks the file at `relativePath` as in use now (its modification time), under its lock.
    /// Returns false when it does not exist — a sweep removed it, so produce it again.
    @available(*, noasync, message: "blocks on flock; run it off the cooperative pool")
    public func claimBlocking(_ relativePath: String) throws -> Bool {
        let path = try absolutePath(relativePath)
        guard let lock = Self.lockPath(of: path) else { return false }
        guard FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent) else { return false }
        return try AtomicFile.withLock(lock, relative: relativePath) { Self.touch(path) }
    }

    /// Removes the file at `relativePath` if it was neither written nor claimed since `idleBefore`
    /// (checked again under its lock), and its lock file with it. Returns whether it was removed.
    @available(*, noasync, message: "blocks on flock and unlink; run it off the cooperative pool")
    public func removeIdleBlocking(_ relativePath: String, idleBefore: Date) throws -> Bool {
        let path = try lifecyclePath(relativePath)
        func removeIfIdle() throws -> Bool {
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Self.modified(st) < idleBefore else { return false }
            if unlink(path) != 0 {
                if errno == ENOENT { return false }
                throw AssetError(errno: errno, operation: "unlink", path: relativePath)
            }
            return true
        }
        if AssetArea(path: relativePath) == .temporary { return try removeIfIdle() }
        guard let lock = Self.lockPath(of: path), FileManager.default.fileExists(atPath: path) else { return false }
        // The lock file goes while held: a waiter on the old one then races a new locker only to
        // produce identical content twice, which the atomic rename makes harmless.
        let removed = try AtomicFile.withLock(lock, relative: relativePath) { () throws -> Bool in
            let removed = try removeIfIdle()
            if removed { unlink(lock) }
            return removed
        }
        if removed {
            // Empty folders of a removed production go too (best effort; a writer recreates them).
            let folder = (path as NSString).deletingLastPathComponent
            if folder.hasPrefix(resolvedRoot + "/productions/"), Self.onlyLockFiles(in: folder) {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] { unlink(folder + "/" + name) }
                rmdir(folder)
            }
        }
        return removed
    }

    /// ``claimBlocking(_:)`` off the cooperative pool.
    public func claim(_ relativePath: String) async throws -> Bool {
        try await Self.offPool { try claimBlocking(relativePath) }
    }

    /// ``removeIdleBlocking(_:idleBefore:)`` off the cooperative pool.
    public func removeIdle(_ relativePath: String, idleBefore: Date) async throws -> Bool {
        try await Self.offPool { try removeIdleBlocking(relativePath, idleBefore: idleBefore) }
    }

    /// The absolute path, allowing what ``absolutePath(_:)`` refuses only for a temporary file's name.
    func lifecyclePath(_ relativePath: String) throws -> String {
        let name = (relativePath as NSString).lastPathComponent
        guard name.hasPrefix(".tmp-"), !name.contains("\0") else { return try absolutePath(relativePath) }
        guard relativePath.contains("/") else { return resolvedRoot + "/" + name }
        return try absolutePath((relativePath as NSString).deletingLastPathComponent) + "/" + name
    }

    /// Sets the modification time to now; false when the file does not exist.
    static func touch(_ path: String) -> Bool {
        utimensat(AT_FDCWD, path, nil, 0) == 0
    }

    /// `<dir>/.<name without its extension>.lock`; for a cache file, its content key's lock.
    static func lockPath(of path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        guard !stem.isEmpty else { return nil }
        return (path as NSString).deletingLastPathComponent + "/.\(stem).lock"
    }

    static func isLockFile(_ name: String) -> Bool { name.hasPrefix(".") && name.hasSuffix(".lock") }

    static func onlyLockFiles(in folder: String) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return false }
        return names.allSatisfy(isLockFile)
    }

    static func modified(_ st: stat) -> Date {
        Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
    }
}
