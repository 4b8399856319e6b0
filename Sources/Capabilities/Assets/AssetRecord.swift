import Foundation

/// What the store knows about one file it wrote: where, how big, its SHA-256 and mime type.
public struct AssetRecord: Codable, Sendable, Hashable {
    /// Path relative to the store root, `/`-separated.
    public var path: String
    /// Size in bytes.
    public var size: Int64
    /// Lower-case hex SHA-256 of the bytes.
    public var sha256: String
    /// Mime type as given by the writer, e.g. `audio/wav`.
    public var mimeType: String
    /// When the file was written.
    public var createdAt: Date

}

/// The `metadata.json` sidecar of one production or request folder.
public struct FolderMetadata: Codable, Sendable, Hashable {
    /// `production` or `request`.
    public var kind: AssetFolderKind
    /// The identifier as given by the caller (before sanitizing).
    public var id: String
    /// The folder path relative to the root.
    public var folder: String
    public var createdAt: Date
    public var updatedAt: Date
    /// Files in the folder keyed by their name relative to the folder.
    public var files: [String: AssetRecord]

    public init(kind: AssetFolderKind, id: String, folder: String, createdAt: Date, updatedAt: Date, files: [String: AssetRecord] = [:]) {
        self.kind = kind
        self.id = id
        self.folder = folder
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.files = files
    }
}

/// The two kinds of top-level folders on the volume.
public enum AssetFolderKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// `productions/<id>/`: everything produced for one submitted document.
    case production
    /// `requests/<id>/`: output of a one-off request (e.g. `reparto speak`).
    case request

    /// The top-level directory name.
    public var directoryName: String { rawValue + "s" }
}

enum AssetJSON {
    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .iso8601
        return e
    }
    static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }
}
