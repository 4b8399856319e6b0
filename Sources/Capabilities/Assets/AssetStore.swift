#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import Dispatch
import Foundation
import Threading

/// The shared asset volume: one folder per production or request, each with a `metadata.json`
/// sidecar, atomic writes, SHA-256 checksums and paths confined to the root.
///
/// Layout (see docs/assets.md):
/// ```
/// <root>/productions/<id>/metadata.json
/// <root>/productions/<id>/<name…>
/// <root>/requests/<id>/…
/// <root>/cache/<kind>/<ab>/<digest>.<ext>     content-addressed, see ContentKey
/// ```
///
/// The synchronous methods block on disk I/O (`fsync`, `flock`) and are marked `noasync`;
/// from async code call the `async` overloads, which run the same work on a Dispatch queue so
/// Swift's cooperative pool is never blocked.
public struct AssetStore: Sendable {
    /// The root as given.
    public let root: URL
    /// The root with symbolic links resolved; every path the store touches must stay below it.
    public let resolvedRoot: String

    /// Opens (and creates if missing) the store at `root`.
    /// - Throws: ``AssetError`` when the root cannot be created or resolved.
    public init(root: URL) throws {
        self.root = root
        let path = root.path
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            // Parents may be missing too.
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
                let code = underlying?.domain == NSPOSIXErrorDomain ? Int32(underlying!.code) : EIO
                throw AssetError(errno: code, operation: "create root", path: path)
            }
        }
        guard let resolved = AtomicFile.resolve(path) else {
            throw AssetError(errno: errno, operation: "resolve root", path: path)
        }
        self.resolvedRoot = resolved
    }

    // MARK: folders

    /// The folder for one production or request (the id is sanitized into a single path component).
    public func folder(_ kind: AssetFolderKind, id: String) -> AssetFolder {
        AssetFolder(store: self, kind: kind, id: id, relativePath: kind.directoryName + "/" + AssetPath.sanitize(id))
    }

    // MARK: paths

    /// The absolute path for `relativePath` after lexical checks; does not touch the disk.
    public func absolutePath(_ relativePath: String) throws -> String {
        let parts = try AssetPath.components(of: relativePath)
        return resolvedRoot + "/" + parts.joined(separator: "/")
    }

    /// True when the resolved path is the root or below it.
    func isConfined(_ resolved: String) -> Bool {
        resolved == resolvedRoot || resolved.hasPrefix(resolvedRoot == "/" ? "/" : resolvedRoot + "/")
    }

    /// Creates the parent folders of `relativePath` one by one, checking after each step that the
    /// real (symlink-resolved) folder is still below the root, and returns that real folder path.
    func prepareParent(_ relativePath: String) throws -> (directory: String, name: String) {
        let parts = try AssetPath.components(of: relativePath)
        var current = resolvedRoot
        for part in parts.dropLast() {
            let next = current + "/" + part
            if mkdir(next, 0o755) != 0 && errno != EEXIST {
                throw AssetError(errno: errno, operation: "mkdir", path: relativePath)
            }
            guard let real = AtomicFile.resolve(next) else {
                throw AssetError(errno: errno, operation: "resolve", path: relativePath)
            }
            guard isConfined(real) else { throw AssetError.pathEscapesRoot(relativePath) }
            var st = stat()
            guard stat(real, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
                throw AssetError.invalidName(relativePath)
            }
            current = real
        }
        return (current, parts[parts.count - 1])
    }

    /// Resolves an existing file and checks it is confined (follows symlinks, then checks).
    func resolveExisting(_ relativePath: String) throws -> String {
        let path = try absolutePath(relativePath)
        guard let real = AtomicFile.resolve(path) else {
            throw AssetError(errno: errno, operation: "open", path: relativePath)
        }
        guard isConfined(real) else { throw AssetError.pathEscapesRoot(relativePath) }
        return real
    }

    // MARK: write / read (blocking)

    /// Writes `data` atomically at `relativePath` and returns its record (size, SHA-256, mime type).
    /// Blocking: use the `async` overload from async code.
    @available(*, noasync, message: "blocks on fsync; use the async overload")
    @discardableResult
    public func writeBlocking(_ data: Data, to relativePath: String, mimeType: String) throws -> AssetRecord {
        let (directory, name) = try prepareParent(relativePath)
        if name == FolderMetadata.fileName, relativePath.split(separator: "/").count == 3 {
            throw AssetError.invalidName(relativePath)  // reserved for the sidecar
        }
        try AtomicFile.write(data, directory: directory, name: name, relative: relativePath)
        return AssetRecord(path: relativePath, size: Int64(data.count), sha256: Self.sha256(data),
                           mimeType: mimeType, createdAt: Self.now())
    }

    /// The current time truncated to whole seconds, so records survive the ISO-8601 sidecar unchanged.
    static func now() -> Date { Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)) }

    /// The most bytes a read takes when its caller names no cap (1 GiB): a sparse or runaway file
    /// fails the read instead of exhausting the process's memory.
    public static let defaultReadLimit = 1 << 30

    /// Reads the file at `relativePath` (symlinks are followed only if they stay below the root).
    ///
    /// The size is checked against `maxBytes` before anything is read, and never more than
    /// `maxBytes + 1` bytes are read, so a file that grows while it is read is refused as well.
    /// - Throws: ``AssetError/tooLarge(path:size:limit:)`` for a file over `maxBytes`.
    @available(*, noasync, message: "blocking file read; use the async overload")
    public func readBlocking(_ relativePath: String, maxBytes: Int = AssetStore.defaultReadLimit) throws -> Data {
        let limit = min(max(0, maxBytes), Int.max - 1)
        let real = try resolveExisting(relativePath)
        let fd = open(real, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw AssetError(errno: errno, operation: "open", path: relativePath) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw AssetError(errno: errno, operation: "stat", path: relativePath) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw AssetError.notFound(path: relativePath) }
        guard st.st_size <= Int64(limit) else {
            throw AssetError.tooLarge(path: relativePath, size: Int64(st.st_size), limit: limit)
        }
        // The size stat gave, plus one byte to see whether the file grew since.
        var data = Data(count: Int(max(0, st.st_size)) + 1)
        var offset = 0
        while true {
            if offset == data.count {
                guard offset <= limit else { break }
                data.count += min(1 << 20, limit + 1 - offset)
            }
            let n = data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
                Glibc.read(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw AssetError(errno: errno, operation: "read", path: relativePath)
            }
            if n == 0 { break }
            offset += n
        }
        guard offset <= limit else { throw AssetError.tooLarge(path: relativePath, size: Int64(offset), limit: limit) }
        data.count = offset
        return data
    }

    /// Reads the file and checks it against an expected SHA-256.
    @available(*, noasync, message: "blocking file read; use the async overload")
    public func readVerifiedBlocking(_ relativePath: String, sha256 expected: String,
                                     maxBytes: Int = AssetStore.defaultReadLimit) throws -> Data {
        let data = try readBlocking(relativePath, maxBytes: maxBytes)
        let actual = Self.sha256(data)
        guard actual == expected.lowercased() else {
            throw AssetError.checksumMismatch(path: relativePath, expected: expected, actual: actual)
        }
        return data
    }

    /// True when a regular file exists at `relativePath` below the root.
    public func exists(_ relativePath: String) -> Bool {
        guard let real = try? resolveExisting(relativePath) else { return false }
        var st = stat()
        return stat(real, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Removes the file at `relativePath` if present.
    @available(*, noasync, message: "blocking; use the async overload")
    public func removeBlocking(_ relativePath: String) throws {
        let path = try absolutePath(relativePath)
        let (directory, _) = try prepareParent(relativePath)
        if unlink(path) != 0 && errno != ENOENT { throw AssetError(errno: errno, operation: "unlink", path: relativePath) }
        try AtomicFile.syncDirectory(directory, relative: relativePath)
    }

    // MARK: async

    /// Writes `data` atomically at `relativePath`; the disk work runs off the cooperative pool.
    @discardableResult
    public func write(_ data: Data, to relativePath: String, mimeType: String) async throws -> AssetRecord {
        try await Self.offPool { try writeBlocking(data, to: relativePath, mimeType: mimeType) }
    }

    /// Reads the file at `relativePath`, refusing one over `maxBytes` before reading it
    /// (``readBlocking(_:maxBytes:)``); the disk work runs off the cooperative pool.
    public func read(_ relativePath: String, maxBytes: Int = AssetStore.defaultReadLimit) async throws -> Data {
        try await Self.offPool { try readBlocking(relativePath, maxBytes: maxBytes) }
    }

    /// Reads and verifies the file at `relativePath` against `sha256`.
    public func readVerified(_ relativePath: String, sha256: String, maxBytes: Int = AssetStore.defaultReadLimit) async throws -> Data {
        try await Self.offPool { try readVerifiedBlocking(relativePath, sha256: sha256, maxBytes: maxBytes) }
    }

    /// Removes the file at `relativePath` if present.
    public func remove(_ relativePath: String) async throws {
        try await Self.offPool { try removeBlocking(relativePath) }
    }

    // MARK: helpers

    /// Lower-case hex SHA-256 of `data`.
    public static func sha256(_ data: Data) -> String {
        HexDigest.string(SHA256.hash(data: data))
    }

    /// Runs blocking work on a Dispatch queue (not the cooperative pool) and awaits its result.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingWork.run(work)
    }
}
