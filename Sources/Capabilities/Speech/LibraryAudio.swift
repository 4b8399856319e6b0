import Foundation

/// One synthesis by an engine linked into Reparto (libespeak-ng, flite): 16-bit mono
/// little-endian PCM at `sampleRate`.
public struct LibraryAudio: Sendable, Hashable {
    public var pcm: Data
    public var sampleRate: Int

    public init(pcm: Data, sampleRate: Int) {
        self.pcm = pcm
        self.sampleRate = sampleRate
    }

    /// The samples as a WAV file, refusing an empty synthesis.
    /// - Throws: ``SpeechError/invalidAudio(provider:reason:)`` when there are no samples.
    func wav(provider: String) throws(SpeechError) -> SynthesizedAudio {
        guard !pcm.isEmpty, sampleRate > 0 else { throw .invalidAudio(provider: provider, reason: "\(provider) produced no samples") }
        let format = WAVFormat.pcm16(sampleRate: sampleRate)
        return SynthesizedAudio(data: WAVWriter.wrap(rawPCM: pcm, format: format), mimeType: "audio/wav",
                                format: format, duration: Double(pcm.count / 2) / Double(sampleRate))
    }
}

/// One line for an engine linked into Reparto, as an in-process library or a ``SpeechHelper``
/// process speaks it.
public struct EngineRequest: Sendable, Hashable {
    /// The linked engines.
    public enum Engine: UInt32, Sendable, CaseIterable {
        case espeak = 0
        case flite = 1

        /// The id of the provider that speaks with this engine.
        public var providerID: String {
            switch self {
            case .espeak: EspeakProvider.providerID
            case .flite: FliteProvider.providerID
            }
        }
    }

    public var engine: Engine
    public var text: String
    public var voice: String
    /// espeak-ng: words per minute; flite: `duration_stretch` in thousandths (1000 = normal).
    public var rate: Int
    /// 0–99, 50 = the voice's own.
    public var pitch: Int
    /// espeak-ng's amplitude, 0–200 (100 = normal); flite ignores it (its volume is a gain applied
    /// after synthesis).
    public var amplitude: Int

    public init(engine: Engine, text: String, voice: String, rate: Int, pitch: Int, amplitude: Int = 100) {
        self.engine = engine
        self.amplitude = amplitude
        self.text = text
        self.voice = voice
        self.rate = rate
        self.pitch = pitch
    }
}
