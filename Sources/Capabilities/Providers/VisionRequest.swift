import Foundation

/// A vision request, the same for every vision provider: images and a prompt in, one JSON object
/// matching ``schema`` out (a ``VisionAnswer``).
///
/// ```swift
/// let request = VisionRequest(prompt: "List the books on this shelf.", images: [VisionImage(mediaType: "image/jpeg", data: photo)],
///                             schemaName: "shelf", schema: Data(#"{"type":"object","properties":{…},"required":[…],"additionalProperties":false}"#.utf8))
/// let answer = try await registry.visionProvider("openai").describeImages(request)
/// ```
public struct VisionRequest: Sendable, Hashable {
    /// The system prompt, if any (an empty one is not sent).
    public var system: String?
    /// What to do with the images.
    public var prompt: String
    /// One to ``maxImages`` images, sent before the prompt's text (Anthropic's advice) or after it
    /// (OpenAI's examples), in order.
    public var images: [VisionImage]
    /// The answer's JSON Schema: a JSON object (bytes), and its name (OpenAI `json_schema.name`, Anthropic tool name; [a-zA-Z0-9_-]{1,64}).
    ///
    /// Its root must be `"type": "object"` (both APIs require it). OpenAI enforces it with
    /// `strict: true`, which takes only its subset of JSON Schema (every property in `required`,
    /// `additionalProperties: false`); Anthropic gets it as a forced tool's `input_schema`.
    public var schemaName: String
    /// The schema's bytes (see ``schemaName``).
    public var schema: Data
    /// The model; nil takes the provider's vision default (`OPENAI_VISION_MODEL`, `ANTHROPIC_VISION_MODEL`).
    public var model: String?
    /// The most tokens to generate (``TextGenerationRequest/maxTokensRange``).
    public var maxTokens: Int
    /// A retry after an answer that did not validate: the model's answer and what was wrong, sent as the assistant's turn and a user turn asking again.
    public var correction: VisionCorrection?

    public init(system: String? = nil, prompt: String, images: [VisionImage], schemaName: String, schema: Data, model: String? = nil,
                maxTokens: Int = 4_096, correction: VisionCorrection? = nil) {
        (self.system, self.prompt, self.images, self.schemaName, self.schema) = (system, prompt, images, schemaName, schema)
        (self.model, self.maxTokens, self.correction) = (model, maxTokens, correction)
    }

    /// The most images one request carries (Anthropic's API takes 20 at full size).
    public static let maxImages = 20
    /// The largest image, in bytes: 20 MiB, OpenAI's limit. Each provider checks its own limit
    /// as well (Anthropic: 5 MiB of base64, ``AnthropicWire/maxImageBase64Length``).
    public static let maxImageBytes = 20 << 20

    /// Throws ``ProviderError/invalidRequest(reason:)`` when nothing can be sent as it is: no
    /// image or more than ``maxImages``; an image that is empty, over ``maxImageBytes`` (20 MiB,
    /// OpenAI's limit; Anthropic's own, 5 MiB of base64 per image, is checked by
    /// ``AnthropicProvider``), of a media type other than `image/jpeg`, `image/png`,
    /// `image/webp`, or whose bytes are not that format (both APIs refuse a mismatch); an empty
    /// prompt; ``maxTokens`` outside ``TextGenerationRequest/maxTokensRange``; a schema name that
    /// is not [a-zA-Z0-9_-]{1,64}; a schema that is not a JSON object with `"type": "object"`; a
    /// correction with an empty answer or error (Anthropic refuses empty turns). Sizes are
    /// checked before any image is read or encoded.
    public func validate() throws(ProviderError) {
        guard !images.isEmpty else { throw .invalidRequest(reason: "no images") }
        guard images.count <= Self.maxImages else {
            throw .invalidRequest(reason: "\(images.count) images; at most \(Self.maxImages) go in one request")
        }
        for (index, image) in images.enumerated() {
            guard VisionImage.supportedMediaTypes.contains(image.mediaType) else {
                throw .invalidRequest(reason: "image \(index): media type '\(image.mediaType.prefix(60))' is not image/jpeg, image/png or image/webp")
            }
            guard !image.data.isEmpty else { throw .invalidRequest(reason: "image \(index) is empty") }
            guard image.data.count <= Self.maxImageBytes else {
                throw .invalidRequest(reason: "image \(index) is \(image.data.count) bytes; at most \(Self.maxImageBytes) (20 MiB)")
            }
            guard VisionImage.mediaType(of: image.data) == image.mediaType else {
                throw .invalidRequest(reason: "image \(index): its bytes are not \(image.mediaType)")
            }
        }
        guard !prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw .invalidRequest(reason: "empty prompt") }
        guard TextGenerationRequest.maxTokensRange.contains(maxTokens) else {
            throw .invalidRequest(reason: "max tokens must be between 1 and \(TextGenerationRequest.maxTokensRange.upperBound)")
        }
        guard Self.isValidSchemaName(schemaName) else {
            throw .invalidRequest(reason: "schema name must be 1 to 64 of a-z, A-Z, 0-9, '_' and '-'")
        }
        _ = try parsedSchema()
        if let correction {
            guard !correction.answer.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw .invalidRequest(reason: "the correction's answer is empty")
            }
            guard !correction.error.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw .invalidRequest(reason: "the correction's error is empty")
            }
        }
    }

    /// True for 1 to 64 characters of `a-z`, `A-Z`, `0-9`, `_` and `-` (both APIs' rule).
    public static func isValidSchemaName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// The schema as a value to embed in a request: a JSON object whose `type` is `object`.
    func parsedSchema() throws(ProviderError) -> JSONValue {
        let value: JSONValue
        do {
            value = try JSONValue.parse(schema)
        } catch {
            throw .invalidRequest(reason: "the schema is not JSON (\(error))")
        }
        guard let members = value.object else { throw .invalidRequest(reason: "the schema is not a JSON object") }
        guard members["type"] == .string("object") else {
            throw .invalidRequest(reason: "the schema's root must be \"type\": \"object\" (the answer is an object)")
        }
        return value
    }
}
