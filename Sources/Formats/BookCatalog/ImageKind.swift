/// Cover images told apart by their first bytes (never by what the server's headers claim).
public enum ImageKind: String, Sendable, Hashable, Codable {
    case jpeg, png, gif, webp

    /// The file extension of the kind.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
    public var mimeType: String { "image/\(rawValue)" }

    /// The kind whose magic bytes `bytes` starts with, or nil (HTML, JSON, a truncated header, …).
    public static func sniff(_ bytes: [UInt8]) -> ImageKind? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webp }
        return nil
    }
}
