/// The families of generated content the system accepts, decided from a mime type.
public enum MimeCategory: String, Codable, Sendable, Hashable, CaseIterable {
    case text, audio, image, video
    /// `application/x-embedding`: a vector of floats.
    case embedding

    /// The mime type used for embeddings.
    public static let embeddingMimeType = "application/x-embedding"

    /// Classifies `mimeType` (parameters like `; charset=utf-8` are ignored, case-insensitive).
    /// - Throws: ``AssetError/unsupportedMimeType(_:)`` for anything else, including malformed types.
    public init(mimeType: String) throws(AssetError) {
        let essence = MimeCategory.essence(of: mimeType)
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty, !parts[0].isEmpty,
              parts.allSatisfy({ $0.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) } }) else {
            throw .unsupportedMimeType(mimeType)
        }
        switch parts[0] {
        case "text": self = .text
        case "audio": self = .audio
        case "image": self = .image
        case "video": self = .video
        case "application" where essence == MimeCategory.embeddingMimeType: self = .embedding
        default: throw .unsupportedMimeType(mimeType)
        }
    }

    /// `type/subtype` in lower case without parameters or spaces.
    public static func essence(of mimeType: String) -> String {
        let head = mimeType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return head.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
