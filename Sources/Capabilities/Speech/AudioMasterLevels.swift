import Foundation

/// What an RMS-targeted master aims at and checks: ACX/Audible's Audio Submission Requirements by
/// default (``acx``). ACX measures plain RMS over the whole file (every sample, unweighted, not
/// LUFS), the peak of the MP3 it receives, and the noise floor in the quiet stretches.
public struct AudioMasterLevels: Sendable, Hashable, Codable {
    /// The whole file's RMS level aimed at (dBFS): the middle of ``rmsRange``.
    public var targetRMSDBFS: Double
    /// The RMS levels allowed (ACX: −23 to −18 dB).
    public var rmsRange: ClosedRange<Double>
    /// The highest peak allowed on the decoded MP3, sample peak and true peak alike (ACX: −3 dB).
    public var peakCeilingDB: Double
    /// The highest noise floor allowed: the RMS of the quietest ``noiseFloorWindowSeconds`` (ACX: −60 dB).
    public var noiseFloorCeilingDBFS: Double
    public var noiseFloorWindowSeconds: Double
    /// What fills every pause (never digital silence).
    public var roomTone: RoomTone
    /// Room tone before the first word and after the last, aimed at and allowed (ACX: 0.5–1 s, 1–5 s).
    public var headSeconds: Double
    public var headRange: ClosedRange<Double>
    public var tailSeconds: Double
    public var tailRange: ClosedRange<Double>
    /// A 10 ms window louder than this (dBFS RMS) is sound, not room tone: how the head and tail
    /// are measured (ACX's noise floor plus 10 dB, 20 dB over the room tone).
    public var soundThresholdDBFS: Double
    /// The MP3: constant bit rate, sample rate (ACX: 192 kbit/s or more, CBR, 44.1 kHz).
    public var mp3BitRateKbps: Int
    public var sampleRate: Int

    public init(targetRMSDBFS: Double = -20, rmsRange: ClosedRange<Double> = -23 ... -18, peakCeilingDB: Double = -3,
                noiseFloorCeilingDBFS: Double = -60, noiseFloorWindowSeconds: Double = 0.5, roomTone: RoomTone = RoomTone(),
                headSeconds: Double = 0.75, headRange: ClosedRange<Double> = 0.5 ... 1,
                tailSeconds: Double = 2.5, tailRange: ClosedRange<Double> = 1 ... 5, soundThresholdDBFS: Double = -50,
                mp3BitRateKbps: Int = 192, sampleRate: Int = 44_100) {
        (self.targetRMSDBFS, self.rmsRange, self.peakCeilingDB) = (targetRMSDBFS, rmsRange, peakCeilingDB)
        (self.noiseFloorCeilingDBFS, self.noiseFloorWindowSeconds, self.roomTone) = (noiseFloorCeilingDBFS, noiseFloorWindowSeconds, roomTone)
        (self.headSeconds, self.headRange, self.tailSeconds, self.tailRange) = (headSeconds, headRange, tailSeconds, tailRange)
        (self.soundThresholdDBFS, self.mp3BitRateKbps, self.sampleRate) = (soundThresholdDBFS, mp3BitRateKbps, sampleRate)
    }

    /// ACX/Audible's Audio Submission Requirements.
    public static let acx = AudioMasterLevels()

    /// What in `reading` breaks these requirements, one sentence each; empty when it passes.
    public func problems(_ reading: AudioMasterReading) -> [String] {
        var problems: [String] = []
        func db(_ value: Double) -> String { value.isFinite ? String(format: "%.1f", value) : (value < 0 ? "-inf" : "inf") }
        if !rmsRange.contains(reading.rmsDBFS) {
            problems.append("RMS \(db(reading.rmsDBFS)) dB is outside \(db(rmsRange.lowerBound)) to \(db(rmsRange.upperBound)) dB")
        }
        if reading.peakDB > peakCeilingDB {
            problems.append("peak \(db(reading.peakDB)) dB is over \(db(peakCeilingDB)) dB")
        }
        if !(reading.noiseFloorDBFS <= noiseFloorCeilingDBFS) {
            problems.append("noise floor \(db(reading.noiseFloorDBFS)) dB is over \(db(noiseFloorCeilingDBFS)) dB")
        }
        if reading.noiseFloorDBFS == -.infinity {
            problems.append("it has stretches of digital silence")
        }
        if !headRange.contains(reading.headSeconds) {
            problems.append(String(format: "%.2f s of room tone at the head, not %.1f to %.1f s", reading.headSeconds, headRange.lowerBound, headRange.upperBound))
        }
        if !tailRange.contains(reading.tailSeconds) {
            problems.append(String(format: "%.2f s of room tone at the tail, not %.1f to %.1f s", reading.tailSeconds, tailRange.lowerBound, tailRange.upperBound))
        }
        return problems
    }
}
