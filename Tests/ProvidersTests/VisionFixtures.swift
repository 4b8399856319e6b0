import Foundation
import RepartoTestSupport
@testable import Providers

/// Images, a schema and requests for the vision tests: recorded-shape data written for these
/// tests (tiny images that carry each format's signature).
enum VisionFixtures {
    /// A 1×1 PNG.
    static let png = ProviderStandIns.png
    /// A JPEG's first and last markers (SOI, APP0 "JFIF", EOI): enough for a signature check.
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xD9])
    /// A RIFF/WEBP container header with a lossless chunk.
    static let webp = Data(Array("RIFF".utf8) + [0x1A, 0x00, 0x00, 0x00] + Array("WEBPVP8L".utf8) + [0x0D, 0x00, 0x00, 0x00, 0x2F, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xFE, 0x07, 0x00])

    /// A strict-mode schema whose `maximum` no Double holds exactly.
    static let schemaText = #"{"type":"object","properties":{"title":{"type":"string"},"count":{"type":"integer","maximum":12345678901234567890}},"required":["title","count"],"additionalProperties":false}"#
    static let schema = Data(schemaText.utf8)

    static func request(images: [VisionImage] = [VisionImage(mediaType: "image/png", data: png)], system: String? = "You catalogue books.",
                        prompt: String = "List the books on the shelf.", schemaName: String = "shelf", schema: Data = VisionFixtures.schema,
                        model: String? = nil, maxTokens: Int = 500, correction: VisionCorrection? = nil) -> VisionRequest {
        VisionRequest(system: system, prompt: prompt, images: images, schemaName: schemaName, schema: schema, model: model,
                      maxTokens: maxTokens, correction: correction)
    }

    /// An image of `count` bytes that starts with the PNG signature.
    static func pngOfSize(_ count: Int) -> Data {
        var data = Data(count: count)
        data.replaceSubrange(0..<8, with: GeneratedImage.pngSignature)
        return data
    }

    static func object(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw ProviderError.invalidRequest(reason: "not an object") }
        return object
    }
}
