import Foundation

/// Hearing a voice before casting it (`reparto voices preview`): the sentence spoken, the file it
/// goes to, and which provider speaks a voice id.
public enum VoicePreview {
    /// The sentence spoken when no other text is given.
    public static let sampleSentence = "Every line of your screenplay can be read in this voice. How does it sound?"

    /// `preview-VOICE.wav`, with characters a file name should not have (a voice id may hold `/`)
    /// replaced by `-`.
    public static func defaultFileName(voice: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")
        let name = String(voice.map { allowed.contains($0) ? $0 : "-" }).trimmingCharacters(in: CharacterSet(charactersIn: "."))
        return "preview-\(name.isEmpty ? "voice" : name).wav"
    }

    /// The provider named, else the first configured one whose listing has `voice`, else the
    /// default (which then refuses a voice it does not know).
    /// - Throws: ``SpeechError`` for a named provider that is unknown or not configured.
    public static func provider(for voice: String, named id: String?, in registry: VoiceProviderRegistry) async throws -> any VoiceProvider {
        if let id { return try registry.configuredProvider(id) }
        for candidate in registry.all where candidate.isConfigured {
            if let voices = try? await candidate.voices(language: nil), voices.contains(where: { $0.id == voice }) { return candidate }
        }
        return try registry.configuredProvider()
    }
}
