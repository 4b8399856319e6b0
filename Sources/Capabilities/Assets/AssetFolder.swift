import Foundation

extension FolderMetadata {
    /// The sidecar's file name inside each production or request folder.
    public static let fileName = "metadata.json"
}

/// One production or request folder with its `metadata.json` sidecar.
///
/// Every write through the folder records the file (size, SHA-256, mime type) in the sidecar.
/// Sidecar updates take an exclusive `flock` on `<folder>/.metadata.lock`, so concurrent
/// writers in several processes or hosts (on a volume with working `flock`) never lose entries.
public struct AssetFolder: Sendable {
    /// The store this folder lives in.
    public let store: AssetStore
    /// Production or request.
    public let kind: AssetFolderKind
    /// The identifier as given (the folder name is its sanitized form).
    public let id: String
    /// The folder path relative to the store root, e.g. `productions/42`.
    public let relativePath: String

    /// The path of `name` relative to the store root.
    public func path(of name: String) throws -> String {
        _ = try AssetPath.components(of: name)
        return relativePath + "/" + name
    }

    /// Writes `data` as `name` (may contain subfolders) and records it in `metadata.json`.
    @available(*, noasync, message: "blocks on fsync; use the async overload")
    @discardableResult
    public func writeBlocking(_ data: Data, name: String, mimeType: String) throws -> AssetRecord {
        if name == FolderMetadata.fileName { throw AssetError.invalidName(name) }
        let record = try store.writeBlocking(data, to: path(of: name), mimeType: mimeType)
        try updateMetadataBlocking { $0.files[name] = record }
        return record
    }

    /// Reads the sidecar, or a fresh empty one if the folder has none yet.
    @available(*, noasync, message: "blocking file read; use the async overload")
    public func metadataBlocking() throws -> FolderMetadata {
        let sidecar = relativePath + "/" + FolderMetadata.fileName
        if store.exists(sidecar) {
            let data = try store.readBlocking(sidecar)
            do {
                return try AssetJSON.decoder().decode(FolderMetadata.self, from: data)
            } catch {
                throw AssetError.invalidRecord(reason: "\(sidecar) is not valid metadata")
            }
        }
        let now = Date()
        return FolderMetadata(kind: kind, id: id, folder: relativePath, createdAt: now, updatedAt: now)
    }

    /// Applies `change` to the sidecar under the folder lock and writes it back atomically.
    @available(*, noasync, message: "blocks on flock and fsync; use the async overload")
    public func updateMetadataBlocking(_ change: (inout FolderMetadata) throws -> Void) throws {
        let (directory, _) = try store.prepareParent(relativePath + "/" + FolderMetadata.fileName)
        try AtomicFile.withLock(directory + "/.metadata.lock", relative: relativePath) {
            var metadata = try metadataBlocking()
            try change(&metadata)
            metadata.updatedAt = Date()
            let data: Data
            do { data = try AssetJSON.encoder().encode(metadata) } catch {
                throw AssetError.invalidRecord(reason: "metadata could not be encoded")
            }
            try AtomicFile.write(data, directory: directory, name: FolderMetadata.fileName,
                                 relative: relativePath + "/" + FolderMetadata.fileName)
        }
    }

    /// Writes `data` as `name` and records it in `metadata.json`, off the cooperative pool.
    @discardableResult
    public func write(_ data: Data, name: String, mimeType: String) async throws -> AssetRecord {
        try await AssetStore.offPool { try writeBlocking(data, name: name, mimeType: mimeType) }
    }

    /// Reads `name` from this folder.
    public func read(_ name: String) async throws -> Data {
        let path = try path(of: name)
        return try await store.read(path)
    }

    /// The folder's `metadata.json` contents.
    public func metadata() async throws -> FolderMetadata {
        try await AssetStore.offPool { try metadataBlocking() }
    }
}
