import Foundation

/// An OpenAI-compatible speech server on ``FakeHTTPServer``, speaking the wire formats of
/// Kokoro-FastAPI and OpenAI's API: `GET /v1/audio/voices` as Kokoro-FastAPI answers it (plain ids
/// before 0.3, `{"id","name"}` objects since), `POST /v1/audio/speech` returning a WAV (16-bit mono,
/// 24 kHz, 0.05 s of tone per word) for `response_format: "wav"`, errors as OpenAI's
/// `{"error": {"message", "type", "param", "code"}}`, and 429 with `Retry-After`. Test code only.
public final class SpeechServerStandIn: @unchecked Sendable {
    /// How `GET /v1/audio/voices` answers.
    public enum Listing: Sendable {
        /// `{"voices": ["af_bella", …]}` (Kokoro-FastAPI before 0.3, `?legacy=true` since).
        case ids
        /// `{"voices": [{"id": "af_bella", "name": "af_bella"}, …]}` (Kokoro-FastAPI 0.3 and later).
        case objects
        /// 404 in OpenAI's error shape: a server without a listing.
        case absent
        /// 200 with this body, whatever it is.
        case raw(Data)
        /// This status in OpenAI's error shape.
        case failing(Int)
    }

    public let server: FakeHTTPServer
    public let voices: [String]

    /// - Parameters:
    ///   - voices: the voices offered (and accepted by `/v1/audio/speech`).
    ///   - listing: how the listing answers.
    ///   - rateLimited: how many speech requests get 429 (with `Retry-After: retryAfter`) before they succeed.
    ///   - apiKey: the Bearer key required, if any (401 `invalid_api_key` otherwise).
    public init(voices: [String] = SpeechServerStandIn.kokoroEnglish, listing: Listing = .ids, rateLimited: Int = 0,
                retryAfter: Int = 7, apiKey: String? = nil) throws {
        self.voices = voices
        let state = State(voices: voices, listing: listing, rateLimited: rateLimited, retryAfter: retryAfter, apiKey: apiKey)
        server = try FakeHTTPServer { request in state.answer(request) }
    }

    public var baseURL: String { server.baseURL }
    public var requests: [FakeHTTPServer.Request] { server.requests }
    /// The `POST /v1/audio/speech` requests' JSON bodies, in order.
    public var speechRequests: [[String: Any]] {
        server.requests.filter { $0.path == "/v1/audio/speech" }
            .compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
    }

    public func stop() { server.stop() }

    /// Kokoro-82M v1.0's English voices, as Kokoro-FastAPI lists them (sorted).
    public static let kokoroEnglish = [
        "af_alloy", "af_aoede", "af_bella", "af_heart", "af_jessica", "af_kore", "af_nicole", "af_nova", "af_river", "af_sarah", "af_sky",
        "am_adam", "am_echo", "am_eric", "am_fenrir", "am_liam", "am_michael", "am_onyx", "am_puck", "am_santa",
        "bf_alice", "bf_emma", "bf_isabella", "bf_lily", "bm_daniel", "bm_fable", "bm_george", "bm_lewis",
    ]

    /// What the server knows, and the 429s left to send.
    private final class State: @unchecked Sendable {
        let voices: [String]
        let listing: Listing
        let retryAfter: Int
        let apiKey: String?
        private let lock = NSLock()
        private var rateLimited: Int

        init(voices: [String], listing: Listing, rateLimited: Int, retryAfter: Int, apiKey: String?) {
            (self.voices, self.listing, self.rateLimited, self.retryAfter, self.apiKey) = (voices, listing, rateLimited, retryAfter, apiKey)
        }

        func answer(_ request: FakeHTTPServer.Request) -> FakeHTTPServer.Reply {
            if let apiKey, request.headers["authorization"] != "Bearer \(apiKey)" {
                return SpeechServerStandIn.error(401, message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key")
            }
            switch (request.method, request.path) {
            case ("GET", "/v1/audio/voices"):
                switch listing {
                case .ids: return SpeechServerStandIn.json(200, ["voices": voices])
                case .objects: return SpeechServerStandIn.json(200, ["voices": voices.map { ["id": $0, "name": $0] }])
                case .absent: return SpeechServerStandIn.error(404, message: "Not Found", type: "invalid_request_error", code: nil)
                case .raw(let body): return .respond(status: 200, headers: [("Content-Type", "application/json")], body: body)
                case .failing(let status): return SpeechServerStandIn.error(status, message: "listing failed", type: "server_error", code: nil)
                }
            case ("POST", "/v1/audio/speech"):
                return speech(request)
            default:
                return SpeechServerStandIn.error(404, message: "Not Found", type: "invalid_request_error", code: nil)
            }
        }

        func speech(_ request: FakeHTTPServer.Request) -> FakeHTTPServer.Reply {
            let limited = lock.withLock { () -> Bool in
                guard rateLimited > 0 else { return false }
                rateLimited -= 1
                return true
            }
            if limited {
                return SpeechServerStandIn.error(429, message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded",
                                                 headers: [("Retry-After", "\(retryAfter)")])
            }
            guard let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
                  let input = body["input"] as? String, let voice = body["voice"] as? String, body["model"] is String else {
                return SpeechServerStandIn.error(400, message: "model, input and voice are required", type: "invalid_request_error", code: nil)
            }
            guard voices.contains(voice) else {
                return SpeechServerStandIn.error(400, message: "Voice '\(voice)' not found", type: "invalid_request_error", code: "invalid_voice")
            }
            guard body["response_format"] as? String == "wav" else {
                return SpeechServerStandIn.error(400, message: "this stand-in answers only response_format wav", type: "invalid_request_error", code: nil)
            }
            let words = max(1, input.split(whereSeparator: \.isWhitespace).count)
            return .respond(status: 200, headers: [("Content-Type", "audio/wav")], body: SpeechServerStandIn.wav(seconds: 0.05 * Double(words)))
        }
    }

    /// A 24 kHz mono 16-bit WAV of a 220 Hz tone.
    public static func wav(seconds: Double) -> Data {
        let rate = 24_000
        let frames = Int(seconds * Double(rate))
        var data = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); u32(UInt32(36 + frames * 2)); data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(1); u16(1); u32(UInt32(rate)); u32(UInt32(rate * 2)); u16(2); u16(16)
        data.append(contentsOf: Array("data".utf8)); u32(UInt32(frames * 2))
        for i in 0..<frames {
            let v = Int16(8000 * sin(2 * Double.pi * 220 * Double(i) / Double(rate)))
            u16(UInt16(bitPattern: v))
        }
        return data
    }

    static func json(_ status: Int, _ object: Any, headers: [(String, String)] = []) -> FakeHTTPServer.Reply {
        ProviderStandIns.reply(status, object, headers: headers)
    }

    static func error(_ status: Int, message: String, type: String, code: String?, headers: [(String, String)] = []) -> FakeHTTPServer.Reply {
        ProviderStandIns.openAIError(status, message: message, type: type, code: code, headers: headers)
    }
}
