import Foundation

/// Very quiet noise laid under a whole master, so that no stretch of it is digital silence: ACX
/// rejects files whose pauses are pure zeros, and a listener hears a dropout there. White noise,
/// uniform between ±``amplitude`` (so its RMS is exactly `amplitude / √3`), from a fixed seed: a
/// redelivered job writes the same bytes. At −70 dB RMS it sits 10 dB under ACX's −60 dB noise
/// floor and about 50 dB under the speech, where nobody hears it.
public struct RoomTone: Sendable, Hashable, Codable {
    /// The noise's RMS level (dBFS).
    public var levelDBFS: Double
    /// The noise generator's seed.
    public var seed: UInt32

    public init(levelDBFS: Double = -70, seed: UInt32 = 20_240_601) {
        (self.levelDBFS, self.seed) = (levelDBFS, seed)
    }

    /// The peak of the uniform noise whose RMS is ``levelDBFS`` (full scale = 1).
    public var amplitude: Double { 3.0.squareRoot() * pow(10, levelDBFS / 20) }

    /// ffmpeg's `anoisesrc` making this noise, endless, at `sampleRate`.
    public func source(sampleRate: Int) -> String {
        "anoisesrc=r=\(sampleRate):color=white:amplitude=\(String(format: "%.8f", amplitude)):seed=\(seed)"
    }
}
