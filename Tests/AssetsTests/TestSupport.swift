import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fresh temporary directory, removed by `cleanup()`.
struct TempDir {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("assets-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    var path: String { url.path }
    func cleanup() { try? FileManager.default.removeItem(at: url) }

    /// Every file name below the directory (recursively), including hidden ones.
    func allFiles() -> [String] {
        guard let e = FileManager.default.enumerator(atPath: path) else { return [] }
        return e.compactMap { $0 as? String }
    }
}

/// Mounting a small tmpfs needs root and mount permission; tests that need it are enabled only then.
enum Mounts {
    static let available: Bool = {
        guard getuid() == 0, let dir = try? TempDir() else { return false }
        defer { dir.cleanup() }
        guard run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir.path]) else { return false }
        _ = run(["umount", dir.path])
        return true
    }()

    /// In CI, and under `scripts/test` (which sets `REPARTO_TEST_REQUIRE_ALL=1`), the mount-based
    /// tests must run: a machine that cannot mount fails them instead of skipping them.
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"
        || ProcessInfo.processInfo.environment["REPARTO_TEST_REQUIRE_ALL"] == "1"

    @discardableResult
    static func run(_ args: [String]) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
}
