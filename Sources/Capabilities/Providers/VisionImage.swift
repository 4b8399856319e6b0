import Foundation

/// One image of a ``VisionRequest``: its bytes and their media type.
public struct VisionImage: Sendable, Hashable {
    /// `image/jpeg`, `image/png` or `image/webp` (``supportedMediaTypes``); the bytes must be of
    /// that format (checked by their signature in ``VisionRequest/validate()``).
    public var mediaType: String
    /// The encoded image (the file's bytes), not base64.
    public var data: Data

    public init(mediaType: String, data: Data) {
        (self.mediaType, self.data) = (mediaType, data)
    }

    /// The media types both vision APIs take (GIF is left out: OpenAI takes only non-animated ones).
    public static let supportedMediaTypes: Set<String> = ["image/jpeg", "image/png", "image/webp"]

    /// The media type the bytes' signature says (`image/jpeg`: `FF D8 FF`; `image/png`: the PNG
    /// signature; `image/webp`: `RIFF….WEBP`), or nil for anything else.
    public static func mediaType(of data: Data) -> String? {
        let head = Array(data.prefix(12))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: Array(GeneratedImage.pngSignature)) { return "image/png" }
        if head.count == 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }

    /// The bytes in base64 (what both APIs carry).
    var base64: String { data.base64EncodedString() }

    /// Characters of ``base64``, computed without encoding: `4 × ⌈bytes / 3⌉`. Only called on a
    /// validated image (at most ``VisionRequest/maxImageBytes``), so it cannot overflow.
    var base64Length: Int { (data.count + 2) / 3 * 4 }

    /// `data:<mediaType>;base64,<bytes>` (the OpenAI API's `image_url.url`).
    var dataURL: String { "data:\(mediaType);base64,\(base64)" }
}
