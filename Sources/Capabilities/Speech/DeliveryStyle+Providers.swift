/// What the HTTP providers are told about a ``DeliveryStyle``.
extension DeliveryStyle {
    /// OpenAI's `instructions` for the gpt-4o TTS models (`tts-1` and `tts-1-hd` take none).
    public var openAIInstructions: String {
        switch self {
        case .whispering: return "Whisper the line, breathy and close, barely voiced."
        case .quiet: return "Speak quietly and softly, as if not to be overheard."
        case .shouting: return "Shout the line, loud and projected."
        case .angry: return "Speak angrily, clipped and tense."
        case .laughing: return "Say the line while laughing."
        case .sad: return "Speak sadly, subdued, close to tears."
        case .excited: return "Speak excitedly, bright and fast."
        }
    }

    /// ElevenLabs `voice_settings`: a lower `stability` gives a wider emotional range, a higher
    /// `style` exaggerates the voice's delivery (both 0–1).
    public var elevenLabsSettings: (stability: Double, style: Double) {
        switch self {
        case .whispering: return (0.35, 0.4)
        case .quiet: return (0.6, 0.2)
        case .shouting: return (0.25, 0.75)
        case .angry: return (0.3, 0.6)
        case .laughing: return (0.3, 0.5)
        case .sad: return (0.4, 0.5)
        case .excited: return (0.3, 0.6)
        }
    }
}
