/// How a line is said, read from the parenthetical before it ("(whispering)", "(beat)").
///
/// A delivery never changes the words: it changes rate, pitch and volume through the
/// ``style`` and puts ``pauseBefore`` seconds of silence before the line. A parenthetical the
/// ``DeliveryTable`` does not know ("(to Dev)") gives a delivery with neither, kept so a reader of
/// the production can see what the script asked for.
public struct Delivery: Codable, Sendable, Hashable {
    /// The parenthetical as written, without its parentheses.
    public var parenthetical: String
    /// How the line is voiced; nil: as the voice normally speaks.
    public var style: DeliveryStyle?
    /// Seconds of silence before the line in the assembled read (a "(beat)"); 0: none.
    public var pauseBefore: Double

    public init(parenthetical: String, style: DeliveryStyle? = nil, pauseBefore: Double = 0) {
        self.parenthetical = parenthetical
        self.style = style
        self.pauseBefore = pauseBefore
    }

    /// True when the delivery changes neither the audio nor the timing.
    public var isNeutral: Bool { style == nil && pauseBefore <= 0 }

    /// `base` with this delivery's rate, pitch, volume and style applied.
    public func options(_ base: SynthesisOptions = .standard) -> SynthesisOptions {
        guard let style else { return base }
        var options = base
        let prosody = style.prosody
        // Kept in the ranges a job's parameters accept: a cast at 4× speed, shouting, stays at 4×.
        let speeds = SynthesisOptions.speedRange, volumes = SynthesisOptions.volumeRange
        options.speed = min(max(base.boundedSpeed * prosody.rate, speeds.lowerBound), speeds.upperBound)
        options.pitch = max(0, min(99, base.boundedPitch + prosody.pitchShift))
        options.volume = min(max(base.boundedVolume * prosody.volume, volumes.lowerBound), volumes.upperBound)
        options.style = style
        return options
    }
}

/// A way of speaking that a parenthetical asks for.
public enum DeliveryStyle: String, Codable, Sendable, Hashable, CaseIterable {
    case whispering, quiet, shouting, angry, laughing, sad, excited

    /// Rate (× normal), pitch shift (espeak-ng pitch units, 50 = normal) and volume (× normal).
    public struct Prosody: Sendable, Hashable {
        public var rate: Double
        public var pitchShift: Int
        public var volume: Double
    }

    /// What the offline engines change. Whispering is not espeak-ng's `whisper` variant: a voice
    /// has one variant, and replacing a character's (`en-us+Alicia`) by `+whisper` would make every
    /// whispering character sound alike; it is spoken at a third of the volume, lower and slower.
    public var prosody: Prosody {
        switch self {
        case .whispering: return Prosody(rate: 0.9, pitchShift: -8, volume: 0.3)
        case .quiet: return Prosody(rate: 0.95, pitchShift: -4, volume: 0.5)
        case .shouting: return Prosody(rate: 1.1, pitchShift: 14, volume: 1.8)
        case .angry: return Prosody(rate: 1.08, pitchShift: 6, volume: 1.3)
        case .laughing: return Prosody(rate: 1.05, pitchShift: 10, volume: 1.0)
        case .sad: return Prosody(rate: 0.85, pitchShift: -8, volume: 0.8)
        case .excited: return Prosody(rate: 1.15, pitchShift: 10, volume: 1.2)
        }
    }
}
