import Foundation

extension AssetStore {
    /// Stores a submitted source file (a script, an export) content-addressed as
    /// `sources/<sha256>.<ext>` and returns that path. An identical file already there is only
    /// claimed — its time set, so a sweep keeps it — and not written again.
    @available(*, noasync, message: "blocks on fsync and flock; run it off the cooperative pool")
    public func storeSourceBlocking(_ data: Data, extension ext: String, mimeType: String) throws -> String {
        let path = "sources/\(Self.sha256(data)).\(AssetPath.sanitize(ext))"
        if try !claimBlocking(path) { try writeBlocking(data, to: path, mimeType: mimeType) }
        return path
    }
}
