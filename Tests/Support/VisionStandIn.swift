import Foundation
import Synchronization

/// A vision API on one loopback port that speaks both wire formats: `POST /v1/chat/completions`
/// as OpenAI (image parts as `data:` URLs, `response_format` `json_schema`) and `POST
/// /v1/messages` as Anthropic (`image` blocks, one forced tool). Built on ``FakeHTTPServer``;
/// test code only.
///
/// It answers by image: the SHA-256 (hex) of the first image's decoded bytes picks a list of
/// ``Answer``s from the table, used in order, the last one repeating; an image not in the table
/// gets the default answer. Like the real APIs it refuses (HTTP 400, in the format's own error
/// shape) a request without an image part, with a data URL or base64 that does not decode, or
/// whose bytes are not JPEG, PNG or WebP (by their signature) or not the media type declared.
/// Every answer reports usage: ``inputTokensPerImage`` per image plus ``inputTokensForText``,
/// and ``outputTokens``.
public final class VisionStandIn: Sendable {
    /// The wire format of a request.
    public enum Format: String, Sendable {
        case openAI, anthropic
    }

    /// What to answer.
    public enum Answer: Sendable {
        /// The JSON object to return (OpenAI: as `message.content`; Anthropic: as the tool's `input`, byte for byte).
        case object(Data)
        /// Text that is not the structured answer (OpenAI: as `message.content`; Anthropic: a
        /// `text` block and no `tool_use`).
        case malformed(String)
        /// A refusal (OpenAI: `message.refusal`; Anthropic: `stop_reason: "refusal"`).
        case refusal(String)
        /// HTTP 429 with `Retry-After` in seconds.
        case rateLimited(retryAfter: Int)
        /// Any other HTTP status with an error body in the format's shape.
        case status(Int, message: String)
    }

    /// One request as the stand-in saw it.
    public struct Recorded: Sendable, Equatable {
        public var path: String
        public var format: Format
        /// SHA-256 (lower-case hex) of each image's decoded bytes, in order (those read before a refusal).
        public var imageDigests: [String]
        /// True when the request carried an assistant turn (a correction's bad answer).
        public var correction: Bool
        /// Why it was refused with a 400, or nil when it was answered.
        public var rejection: String?

        public init(path: String, format: Format, imageDigests: [String], correction: Bool, rejection: String?) {
            (self.path, self.format, self.imageDigests, self.correction, self.rejection) = (path, format, imageDigests, correction, rejection)
        }
    }

    public static let inputTokensPerImage = 1_000
    public static let inputTokensForText = 25
    public static let outputTokens = 42

    private final class State: Sendable {
        struct Value {
            var requests: [Recorded] = []
            var used: [String: Int] = [:]
        }
        let value = Mutex(Value())
    }

    private let server: FakeHTTPServer
    private let state: State

    public var baseURL: String { server.baseURL }
    public var requests: [Recorded] { state.value.withLock { $0.requests } }

    /// - Parameters:
    ///   - answers: by the SHA-256 hex of a request's first image (``sha256Hex(_:)``).
    ///   - defaultAnswer: for an image not in `answers`.
    public init(answers: [String: [Answer]] = [:], default defaultAnswer: Answer = .object(Data("{}".utf8))) throws {
        let state = State()
        self.state = state
        server = try FakeHTTPServer { request in
            let format: Format
            switch (request.method, request.path) {
            case ("POST", "/v1/chat/completions"): format = .openAI
            case ("POST", "/v1/messages"): format = .anthropic
            default: return .respond(status: 404, headers: [], body: Data("no such endpoint".utf8))
            }
            let parsed = Self.read(request.body, format: format)
            state.value.withLock { value in
                value.requests.append(Recorded(path: request.path, format: format, imageDigests: parsed.digests,
                                               correction: parsed.correction, rejection: parsed.rejection))
            }
            if let rejection = parsed.rejection { return Self.invalid(rejection, format: format) }
            let answer = state.value.withLock { value in
                let key = parsed.digests[0]  // not refused: at least one image
                let list = answers[key] ?? []
                let index = value.used[key, default: 0]
                value.used[key] = index + 1
                return list.isEmpty ? defaultAnswer : list[min(index, list.count - 1)]
            }
            let usage = (input: Self.inputTokensPerImage * parsed.digests.count + Self.inputTokensForText, output: Self.outputTokens)
            switch format {
            case .openAI: return Self.openAI(answer, model: parsed.model, usage: usage)
            case .anthropic: return Self.anthropic(answer, model: parsed.model, tool: parsed.tool, usage: usage)
            }
        }
    }

    public func stop() {
        server.stop()
    }

    // MARK: reading a request

    private struct Parsed {
        var digests: [String] = []
        var correction = false
        var model = ""
        var tool = ""
        var rejection: String?
    }

    private static func read(_ body: Data, format: Format) -> Parsed {
        var parsed = Parsed()
        guard let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            parsed.rejection = "the body is not a JSON object"
            return parsed
        }
        parsed.model = json["model"] as? String ?? ""
        let messages = json["messages"] as? [[String: Any]] ?? []
        parsed.correction = messages.contains { $0["role"] as? String == "assistant" }
        guard let first = messages.first(where: { $0["role"] as? String == "user" }), let parts = first["content"] as? [[String: Any]] else {
            parsed.rejection = "the first user message has no content parts"
            return parsed
        }
        // (media type, base64) of each image part, or a reason to refuse.
        var images: [(String, String)] = []
        switch format {
        case .openAI:
            guard let responseFormat = json["response_format"] as? [String: Any], responseFormat["type"] as? String == "json_schema",
                  let schema = responseFormat["json_schema"] as? [String: Any], schema["schema"] is [String: Any], schema["name"] is String else {
                parsed.rejection = "response_format must be json_schema with a name and a schema"
                return parsed
            }
            for part in parts where part["type"] as? String == "image_url" {
                guard let url = (part["image_url"] as? [String: Any])?["url"] as? String, url.hasPrefix("data:"),
                      let comma = url.firstIndex(of: ","), url[..<comma].hasSuffix(";base64") else {
                    parsed.rejection = "image_url.url is not a base64 data URL"
                    return parsed
                }
                images.append((String(url[url.index(url.startIndex, offsetBy: 5)..<comma].dropLast(";base64".count)),
                               String(url[url.index(after: comma)...])))
            }
        case .anthropic:
            guard let tools = json["tools"] as? [[String: Any]], tools.count == 1, let name = tools[0]["name"] as? String,
                  tools[0]["input_schema"] is [String: Any], let choice = json["tool_choice"] as? [String: Any],
                  choice["type"] as? String == "tool", choice["name"] as? String == name else {
                parsed.rejection = "tools must be one tool with an input_schema, forced by tool_choice"
                return parsed
            }
            parsed.tool = name
            for part in parts where part["type"] as? String == "image" {
                guard let source = part["source"] as? [String: Any], source["type"] as? String == "base64",
                      let mediaType = source["media_type"] as? String, let data = source["data"] as? String else {
                    parsed.rejection = "image.source must be base64 with a media_type and data"
                    return parsed
                }
                images.append((mediaType, data))
            }
        }
        guard !images.isEmpty else {
            parsed.rejection = "no image part"
            return parsed
        }
        for (index, (mediaType, base64)) in images.enumerated() {
            guard let bytes = Data(base64Encoded: base64) else {
                parsed.rejection = "image \(index): the base64 does not decode"
                return parsed
            }
            parsed.digests.append(sha256Hex(bytes))
            guard let actual = imageFormat(bytes) else {
                parsed.rejection = "image \(index): not a JPEG, PNG or WebP image"
                return parsed
            }
            guard actual == mediaType else {
                parsed.rejection = "image \(index): the bytes are \(actual), not \(mediaType)"
                return parsed
            }
        }
        return parsed
    }

    /// The media type the signature says, or nil.
    private static func imageFormat(_ bytes: Data) -> String? {
        let head = Array(bytes.prefix(12))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if head.count == 12, head.starts(with: Array("RIFF".utf8)), Array(head[8...]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }

    // MARK: answering

    private static func invalid(_ message: String, format: Format) -> FakeHTTPServer.Reply {
        switch format {
        case .openAI: ProviderStandIns.openAIError(400, message: "Invalid request: \(message)", type: "invalid_request_error", code: "invalid_image")
        case .anthropic: ProviderStandIns.anthropicError(400, type: "invalid_request_error", message: "messages.0.content: \(message)")
        }
    }

    private static func openAI(_ answer: Answer, model: String, usage: (input: Int, output: Int)) -> FakeHTTPServer.Reply {
        switch answer {
        case .object(let object):
            return ProviderStandIns.openAIChat(String(decoding: object, as: UTF8.self), model: model, promptTokens: usage.input,
                                               completionTokens: usage.output)
        case .malformed(let text):
            return ProviderStandIns.openAIChat(text, model: model, promptTokens: usage.input, completionTokens: usage.output)
        case .refusal(let reason):
            return ProviderStandIns.openAIChat("", model: model, promptTokens: usage.input, completionTokens: usage.output, refusal: reason)
        case .rateLimited(let seconds):
            return ProviderStandIns.openAIRateLimited(retryAfter: seconds)
        case .status(let status, let message):
            return ProviderStandIns.openAIError(status, message: message, type: status >= 500 ? "server_error" : "invalid_request_error", code: nil)
        }
    }

    private static func anthropic(_ answer: Answer, model: String, tool: String, usage: (input: Int, output: Int)) -> FakeHTTPServer.Reply {
        let placeholder = "__VISION_STAND_IN_INPUT__"
        func message(_ content: [[String: Any]], stopReason: String) -> [String: Any] {
            ["id": "msg_vision", "type": "message", "role": "assistant", "model": model, "content": content,
             "stop_reason": stopReason, "stop_sequence": NSNull(), "usage": ["input_tokens": usage.input, "output_tokens": usage.output]]
        }
        switch answer {
        case .object(let object):
            // The object goes in byte for byte (JSONSerialization would round its numbers).
            let envelope = message([["type": "tool_use", "id": "toolu_vision", "name": tool, "input": placeholder]], stopReason: "tool_use")
            var body = (try? JSONSerialization.data(withJSONObject: envelope, options: [.sortedKeys])) ?? Data()
            if let range = body.range(of: Data("\"\(placeholder)\"".utf8)) { body.replaceSubrange(range, with: object) }
            return .respond(status: 200, headers: ProviderStandIns.json, body: body)
        case .malformed(let text):
            return ProviderStandIns.reply(200, message([["type": "text", "text": text]], stopReason: "end_turn"))
        case .refusal(let reason):
            return ProviderStandIns.reply(200, message([["type": "text", "text": reason]], stopReason: "refusal"))
        case .rateLimited(let seconds):
            return ProviderStandIns.anthropicError(429, type: "rate_limit_error", message: "Number of requests has exceeded your rate limit",
                                                   headers: [("retry-after", "\(seconds)")])
        case .status(let status, let message):
            return ProviderStandIns.anthropicError(status, type: status >= 500 ? "api_error" : "invalid_request_error", message: message)
        }
    }

    // MARK: SHA-256 (FIPS 180-4; the test support library has no crypto dependency)

    /// The SHA-256 of `data`, in lower-case hex: the key of the answers table.
    public static func sha256Hex(_ data: Data) -> String {
        var hash: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var message = Array(data)
        let bitLength = UInt64(message.count) &* 8
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { message.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        var w = [UInt32](repeating: 0, count: 64)
        for chunk in stride(from: 0, to: message.count, by: 64) {
            for i in 0..<16 {
                let b = chunk + i * 4
                w[i] = UInt32(message[b]) << 24 | UInt32(message[b + 1]) << 16 | UInt32(message[b + 2]) << 8 | UInt32(message[b + 3])
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = (hash[0], hash[1], hash[2], hash[3], hash[4], hash[5], hash[6], hash[7])
            for i in 0..<64 {
                let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ roundConstants[i] &+ w[i]
                let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, value) in [a, b, c, d, e, f, g, h].enumerated() { hash[i] = hash[i] &+ value }
        }
        return hash.map { word in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }

    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }

    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
}
