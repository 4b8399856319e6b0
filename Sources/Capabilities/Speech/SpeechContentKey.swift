import Assets

extension ContentKey {
    /// The content key of one synthesis: everything that changes the audio (provider, voice,
    /// language, options and the exact text). Use with `AssetStore.reuseOrProduce` so the same line
    /// is never synthesized twice.
    ///
    /// Volume and style are inputs only when set, so the key of a line without a delivery is the
    /// one it had before they existed (its audio is reused).
    public static func speech(provider: String, voice: String, language: String?, options: SynthesisOptions, text: String) -> ContentKey {
        var inputs = [
            "provider": provider, "voice": voice, "language": language ?? "",
            "speed": String(options.speed), "pitch": options.pitch.map(String.init) ?? "", "model": options.model ?? "",
            "text": text,
        ]
        if let volume = options.volume { inputs["volume"] = String(volume) }
        if let style = options.style { inputs["style"] = style.rawValue }
        return ContentKey(kind: "speech", inputs: inputs)
    }
}
