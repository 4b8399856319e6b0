import Foundation
import Testing
@testable import Providers

/// ``VisionRequest/validate()``: what can be sent, and the reason when it cannot (nothing sent).
@Suite(.timeLimit(.minutes(1))) struct VisionRequestTests {
    typealias F = VisionFixtures

    @Test func aRequestWithEachFormatIsValid() throws {
        try F.request(images: [VisionImage(mediaType: "image/png", data: F.png), VisionImage(mediaType: "image/jpeg", data: F.jpeg),
                               VisionImage(mediaType: "image/webp", data: F.webp)]).validate()
        try F.request(images: Array(repeating: VisionImage(mediaType: "image/png", data: F.png), count: VisionRequest.maxImages)).validate()
        try F.request(images: [VisionImage(mediaType: "image/png", data: F.pngOfSize(VisionRequest.maxImageBytes))]).validate()
        try F.request(system: nil, maxTokens: 1, correction: VisionCorrection(answer: "{}", error: "missing title")).validate()
    }

    /// The reason of the `invalidRequest` the request throws, or nil.
    func reason(_ request: VisionRequest) -> String? {
        do {
            try request.validate()
            return nil
        } catch {
            guard case .invalidRequest(let reason) = error else { return "unexpected \(error)" }
            return reason
        }
    }

    @Test func imagesAreCountedSizedAndTyped() {
        let png = VisionImage(mediaType: "image/png", data: F.png)
        #expect(reason(F.request(images: [])) == "no images")
        #expect(reason(F.request(images: Array(repeating: png, count: 21)))?.contains("at most 20") == true)
        #expect(reason(F.request(images: [VisionImage(mediaType: "image/png", data: F.pngOfSize(VisionRequest.maxImageBytes + 1))]))?
            .contains("at most 20971520") == true)
        #expect(reason(F.request(images: [VisionImage(mediaType: "image/gif", data: Data("GIF89a".utf8))]))?.contains("image/gif") == true)
        #expect(reason(F.request(images: [VisionImage(mediaType: "image/png", data: Data())])) == "image 0 is empty")
        #expect(reason(F.request(images: [png, VisionImage(mediaType: "image/png", data: F.jpeg)])) == "image 1: its bytes are not image/png")
        #expect(reason(F.request(images: [VisionImage(mediaType: "image/webp", data: Data("RIFF".utf8))])) == "image 0: its bytes are not image/webp")
    }

    @Test(arguments: ["", "   \n"]) func anEmptyPromptIsInvalid(prompt: String) {
        #expect(reason(F.request(prompt: prompt)) == "empty prompt")
    }

    @Test(arguments: [0, -1, 1_000_001, Int.max, Int.min]) func tokenCapsOutOfRangeAreInvalid(maxTokens: Int) {
        #expect(reason(F.request(maxTokens: maxTokens))?.contains("max tokens") == true)
    }

    @Test(arguments: ["", String(repeating: "a", count: 65), "has space", "naïve", "a.b", "a/b"])
    func badSchemaNamesAreInvalid(name: String) {
        #expect(reason(F.request(schemaName: name))?.contains("schema name") == true)
    }

    @Test func schemaNamesOfTheAllowedCharactersAreValid() {
        #expect(VisionRequest.isValidSchemaName(String(repeating: "z", count: 64)))
        #expect(VisionRequest.isValidSchemaName("book_shelf-2"))
    }

    @Test(arguments: [
        ("not json", "not JSON"), ("[1,2]", "not a JSON object"), (#"{"type":"array"}"#, "\"type\": \"object\""),
        (#"{"properties":{}}"#, "\"type\": \"object\""), (#"{"type":"object"} {}"#, "not JSON"),
        (#"{"type":"object","type":"object"}"#, "not JSON"),
    ])
    func aSchemaThatIsNotAnObjectSchemaIsInvalid(schema: String, expected: String) {
        let got = reason(F.request(schema: Data(schema.utf8)))
        #expect(got?.contains(expected) == true, "\(String(describing: got))")
    }

    @Test func aCorrectionNeedsAnAnswerAndAnError() {
        #expect(reason(F.request(correction: VisionCorrection(answer: " ", error: "missing title"))) == "the correction's answer is empty")
        #expect(reason(F.request(correction: VisionCorrection(answer: "{}", error: ""))) == "the correction's error is empty")
    }

    @Test func eachProviderChecksItsOwnImageLimits() throws {
        // Anthropic measures base64: 3,932,160 bytes encode to exactly 5 MiB of base64.
        let largest = F.pngOfSize(3_932_160)
        try AnthropicWire.checkVisionLimits(F.request(images: [VisionImage(mediaType: "image/png", data: largest)]))
        #expect(throws: ProviderError.self) {
            try AnthropicWire.checkVisionLimits(F.request(images: [VisionImage(mediaType: "image/png", data: F.pngOfSize(3_932_161))]))
        }
        // Nine images at Anthropic's per-image limit are more than one 32 MB request carries.
        let nine = Array(repeating: VisionImage(mediaType: "image/png", data: largest), count: 9)
        #expect(throws: ProviderError.self) { try AnthropicWire.checkVisionLimits(F.request(images: nine)) }
        try OpenAIWire.checkVisionLimits(F.request(images: nine))
        // OpenAI: 20 MB an image, 50 MB in all (one buffer shared by the three images).
        let big = VisionImage(mediaType: "image/png", data: F.pngOfSize(20 << 20))
        try F.request(images: [big, big, big]).validate()
        try OpenAIWire.checkVisionLimits(F.request(images: [big, big]))
        #expect(throws: ProviderError.self) { try OpenAIWire.checkVisionLimits(F.request(images: [big, big, big])) }
    }
}
