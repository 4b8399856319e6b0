import Assets

extension ContentKey {
    /// The content key of one synthesis: everything that changes the audio (provider, voice,
    /// language, options and the exact text). Use with `AssetStore.reuseOrProduce` so the same line
    /// is never synthesized twice.
    public static func speech(provider: String, voice: String, language: String?, options: SynthesisOptions, text: String) -> ContentKey {
        ContentKey(kind: "speech", inputs: [
            "provider": provider, "voice": voice, "language": language ?? "",
            "speed": String(options.speed), "pitch": options.pitch.map(String.init) ?? "", "model": options.model ?? "",
            "text": text,
        ])
    }
}
