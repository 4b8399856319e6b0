import Foundation

/// The answer of an OpenAI-compatible speech server's `GET /v1/audio/voices`, read strictly.
///
/// Kokoro-FastAPI answers `{"voices": ["af_bella", "am_adam", …]}` (before 0.3, and with
/// `?legacy=true` since) or `{"voices": [{"id": "af_bella", "name": "af_bella"}, …]}` (since 0.3,
/// the shape Open WebUI reads). Both are accepted; anything else — another top level, a voice that
/// is neither a string nor an object with a string `id`, an empty or overlong id, control
/// characters, more than ``maximumVoices`` voices — is refused with the field at fault named.
enum SpeechServerVoiceListing {
    /// The largest listing read, in bytes (a Kokoro listing of 60 voices is about 2 KB).
    static let maximumBytes = 1 << 20
    /// The most voices accepted.
    static let maximumVoices = 10_000
    /// The longest voice id or name accepted, in characters.
    static let maximumLength = 200

    /// One listed voice.
    struct Entry: Sendable, Hashable {
        var id: String
        var name: String?
    }

    /// The voices of `body`, in the server's order, without repeats.
    /// - Throws: ``SpeechError/rejected(provider:status:message:)`` naming what is wrong.
    static func parse(_ body: Data, provider: String) throws(SpeechError) -> [Entry] {
        func refuse(_ reason: String) -> SpeechError {
            .rejected(provider: provider, status: 200, message: "unexpected voice listing: \(reason)")
        }
        guard body.count <= maximumBytes else { throw refuse("larger than \(maximumBytes) bytes") }
        let json: Any
        do { json = try JSONSerialization.jsonObject(with: body) } catch { throw refuse("not JSON") }
        guard let object = json as? [String: Any] else { throw refuse("not a JSON object") }
        guard let voices = object["voices"] as? [Any] else { throw refuse("no \"voices\" array") }
        guard voices.count <= maximumVoices else { throw refuse("more than \(maximumVoices) voices") }
        var entries: [Entry] = []
        var seen = Set<String>()
        for (index, value) in voices.enumerated() {
            let entry: Entry
            if let id = value as? String {
                entry = Entry(id: id)
            } else if let fields = value as? [String: Any], let id = fields["id"] as? String {
                let name = fields["name"]
                guard name == nil || name is NSNull || name is String else { throw refuse("voices[\(index)].name is not a string") }
                entry = Entry(id: id, name: name as? String)
            } else {
                throw refuse("voices[\(index)] is neither a voice id nor an object with a string \"id\"")
            }
            guard valid(entry.id) else { throw refuse("voices[\(index)] has an empty, overlong or unprintable id") }
            if let name = entry.name, !valid(name) { throw refuse("voices[\(index)].name is empty, overlong or unprintable") }
            if seen.insert(entry.id).inserted { entries.append(entry) }
        }
        return entries
    }

    /// Not empty, at most ``maximumLength`` characters, no control characters.
    static func valid(_ text: String) -> Bool {
        !text.isEmpty && text.count <= maximumLength && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
