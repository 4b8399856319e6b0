import Foundation

/// A master's levels as ACX reads them: the whole file's RMS and peak, the noise floor (the RMS
/// of the quietest window) and how much room tone comes before the first sound and after the last.
public struct AudioMasterReading: Sendable, Hashable {
    /// Every sample, unweighted (dBFS).
    public var rmsDBFS: Double
    public var samplePeakDBFS: Double
    /// nil when it was not measured.
    public var truePeakDBTP: Double?
    public var integratedLUFS: Double
    /// The RMS of the quietest window (−∞: a window of digital silence).
    public var noiseFloorDBFS: Double
    /// Seconds before the first 10 ms window louder than the sound threshold, and after the last.
    public var headSeconds: Double
    public var tailSeconds: Double
    public var duration: Double

    /// The higher of the sample peak and the true peak.
    public var peakDB: Double { max(samplePeakDBFS, truePeakDBTP ?? -.infinity) }
}

/// Measures 16-bit PCM for ``AudioMasterReading`` in one streaming pass, beside a
/// ``LoudnessMeter`` (integrated loudness, sample and true peak).
struct AudioMasterMeter: Sendable {
    static let soundWindowSeconds = 0.01
    let sampleRate: Int
    let channels: Int
    private var loudness: LoudnessMeter
    private let noiseWindowFrames: Int
    private let soundWindowFrames: Int
    /// The sound threshold as a mean square of full-scale-1 samples.
    private let soundThreshold: Double
    private var noiseSum = 0.0, noiseFrames = 0
    private var quietest: Double?
    private var soundSum = 0.0, soundFrames = 0, soundWindow = 0
    private var firstSound: Int?, lastSound: Int?
    private var frames = 0

    init(sampleRate: Int, channels: Int, levels: AudioMasterLevels, truePeak: Bool) {
        self.sampleRate = max(sampleRate, 1)
        self.channels = max(channels, 1)
        loudness = LoudnessMeter(sampleRate: self.sampleRate, channels: self.channels, truePeak: truePeak)
        noiseWindowFrames = max(Int(min((levels.noiseFloorWindowSeconds * Double(self.sampleRate)).rounded(), Double(Int32.max))), 1)
        soundWindowFrames = max(Int(min((Self.soundWindowSeconds * Double(self.sampleRate)).rounded(), Double(Int32.max))), 1)
        soundThreshold = pow(10, levels.soundThresholdDBFS / 10)
    }

    /// Feeds interleaved little-endian 16-bit samples (whole frames).
    mutating func append(pcm16 raw: UnsafeRawBufferPointer) {
        let count = raw.count / 2 / channels * channels
        guard count > 0 else { return }
        loudness.append(pcm16: UnsafeRawBufferPointer(rebasing: raw.prefix(count * 2)))
        let scale = 1 / (32768.0 * 32768.0 * Double(channels))
        var index = 0
        while index < count {
            var square: Int64 = 0
            for channel in 0..<channels {
                let sample = Int64(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: (index + channel) * 2, as: Int16.self)))
                square += sample * sample
            }
            let energy = Double(square) * scale
            noiseSum += energy
            noiseFrames += 1
            if noiseFrames == noiseWindowFrames {
                quietest = min(quietest ?? .infinity, noiseSum / Double(noiseFrames))
                (noiseSum, noiseFrames) = (0, 0)
            }
            soundSum += energy
            soundFrames += 1
            if soundFrames == soundWindowFrames { closeSoundWindow() }
            frames += 1
            index += channels
        }
    }

    private mutating func closeSoundWindow() {
        if soundSum / Double(max(soundFrames, 1)) > soundThreshold {
            if firstSound == nil { firstSound = soundWindow }
            lastSound = soundWindow
        }
        (soundSum, soundFrames) = (0, 0)
        soundWindow += 1
    }

    /// What was measured; a file shorter than one noise window has its whole length as the window.
    var reading: AudioMasterReading {
        var meter = self
        if meter.soundFrames > 0 { meter.closeSoundWindow() }
        let level = meter.loudness.measurement
        let duration = Double(frames) / Double(sampleRate)
        let floor = quietest ?? (noiseFrames > 0 ? noiseSum / Double(noiseFrames) : 0)
        let window = Double(soundWindowFrames) / Double(sampleRate)
        let head = meter.firstSound.map { Double($0) * window } ?? duration
        let tail = meter.lastSound.map { max(duration - Double($0 + 1) * window, 0) } ?? duration
        return AudioMasterReading(rmsDBFS: level.rmsDBFS, samplePeakDBFS: level.samplePeakDBFS, truePeakDBTP: level.truePeakDBTP,
                                  integratedLUFS: level.integratedLUFS, noiseFloorDBFS: 10 * log10(floor),
                                  headSeconds: min(head, duration), tailSeconds: min(tail, duration), duration: duration)
    }

    /// Measures a 16-bit PCM WAV file by streaming it.
    /// - Throws: ``WAVError`` for a file that is not such a WAV file, or cannot be read.
    static func measure(wavFileAt path: String, levels: AudioMasterLevels, truePeak: Bool) throws(WAVError) -> AudioMasterReading {
        var meter: AudioMasterMeter?
        try WAVFileStream.readPCM16(at: path) { format, block in
            if meter == nil { meter = AudioMasterMeter(sampleRate: format.sampleRate, channels: format.channels, levels: levels, truePeak: truePeak) }
            meter?.append(pcm16: block)
        }
        return (meter ?? AudioMasterMeter(sampleRate: 1, channels: 1, levels: levels, truePeak: truePeak)).reading
    }
}
