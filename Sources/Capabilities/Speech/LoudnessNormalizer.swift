import Foundation

/// What loudness normalization aims at: EBU R128 / podcast practice, −16 LUFS integrated with the
/// true peak at most −1 dBTP.
public struct LoudnessTarget: Sendable, Hashable, Codable {
    public var integratedLUFS: Double = -16
    public var truePeakCeilingDBTP: Double = -1
    public var loudnessRange: Double = 11
    public static let standard = LoudnessTarget()
}

/// A loudness measurement (ITU-R BS.1770 / EBU R128).
public struct LoudnessMeasurement: Sendable, Hashable, Codable {
    public var integratedLUFS: Double
    /// The peak: true peak in dBTP (oversampled) when ``peakIsTrue``, else the sample peak in dBFS.
    public var peakDB: Double
    public var peakIsTrue: Bool
    public var loudnessRange: Double
    public var threshold: Double

    /// The true peak, when measured.
    public var truePeakDBTP: Double? { peakIsTrue ? peakDB : nil }
}

/// A tool (ffmpeg) that failed, in one line: its exit status and the end of what it said.
public struct AudioToolError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
}

/// Loudness normalization by measurement, gain and a peak limiter:
///
/// 1. measure the file's integrated loudness and true peak (``LoudnessMeter``, or a measurement
///    the caller took while writing the file);
/// 2. apply the gain that brings it to the target with ffmpeg: as one gain (`linear`) when the
///    true peak stays under the ceiling, else through a look-ahead limiter (`alimiter`) at the
///    ceiling less ``limiterMarginDB`` (`limited`);
/// 3. measure what was written; when limiting cost more than ``toleranceLU`` of loudness, apply
///    again with that much more gain, and when a true peak passed the ceiling, with the limiter
///    lower.
///
/// One gain for the whole read keeps every line's level relative to the others (a whispered line
/// stays as much quieter as it was spoken), and the limiter only touches peaks. ffmpeg only
/// applies; the measuring is done in-process in one streaming pass, because ffmpeg's true-peak
/// meter resamples everything to 192 kHz and took longer than the rest of the work together (17 s
/// of CPU for 2½ hours of speech). Blocking: it runs ffmpeg and waits, so call it off the
/// cooperative pool.
public struct LoudnessNormalizer: Sendable {
    public let ffmpeg: FFmpegTool
    public let target: LoudnessTarget
    /// The limiter works on samples; peaks between samples can pass it by a fraction of a dB.
    public static let limiterMarginDB = 1.0
    /// How far from the target the result may land.
    public static let toleranceLU = 0.5

    public init(ffmpeg: FFmpegTool, target: LoudnessTarget = .standard) {
        self.ffmpeg = ffmpeg
        self.target = target
    }

    /// What normalization did: the measurement before, after, and the mode.
    public struct Outcome: Sendable, Hashable {
        public var before: LoudnessMeasurement
        public var after: LoudnessMeasurement
        /// `linear` (one gain for the whole file) or `limited` (one gain, and a limiter on the peaks).
        public var mode: String
        /// The written file's sample peak and RMS level (dBFS).
        public var samplePeakDBFS: Double
        public var rmsDBFS: Double
    }

    /// Normalizes the WAV file at `input` into `output` (a new file) at `sampleRate`.
    /// - Parameter measured: the input's loudness, when the caller measured it while writing it.
    /// - Throws: ``AudioToolError`` when ffmpeg fails or the file cannot be measured.
    @available(*, noasync, message: "runs ffmpeg and waits; call it off the cooperative pool")
    public func normalize(_ input: String, into output: String, sampleRate: Int,
                          measured: LoudnessMeasurement? = nil) throws -> Outcome {
        let before = try measured ?? measure(input).loudness
        var gain = target.integratedLUFS - before.integratedLUFS
        var limit = target.truePeakCeilingDBTP - Self.limiterMarginDB
        // A known true peak scales exactly with a linear gain; a sample peak leaves room for
        // what lies between samples.
        var limited = before.peakDB + gain > (before.peakIsTrue ? target.truePeakCeilingDBTP : limit)
        var outcome: Outcome?
        for attempt in 0..<6 {  // up to 3 for the loudness, the rest for a true peak over the ceiling
            try apply(input, into: output, gainDB: gain, limitDB: limited ? limit : nil, sampleRate: sampleRate)
            // The loudness first: a limited pass that fell short is applied again, and its true
            // peak (the dearer half of the measuring) is never needed.
            var written = try measure(output, truePeak: false)
            let shortfall = target.integratedLUFS - written.integratedLUFS
            if limited, abs(shortfall) > Self.toleranceLU, attempt < 3 {
                gain += shortfall
                continue
            }
            written.truePeakDBTP = try measureTruePeak(output)
            outcome = Outcome(before: before, after: written.loudness, mode: limited ? "limited" : "linear",
                              samplePeakDBFS: written.samplePeakDBFS, rmsDBFS: written.rmsDBFS)
            let over = written.loudness.peakDB - target.truePeakCeilingDBTP
            guard over > 0 else { break }
            limit = min(limit, target.truePeakCeilingDBTP - Self.limiterMarginDB) - (limited ? over + 0.2 : 0)
            limited = true
        }
        guard let outcome else { throw AudioToolError(description: "loudness did not settle within \(Self.toleranceLU) LU of the target") }
        return outcome
    }

    /// Writes `input` with `gainDB` applied (and limited to `limitDB` of sample peak) as 16-bit PCM.
    @available(*, noasync, message: "runs ffmpeg and waits; call it off the cooperative pool")
    func apply(_ input: String, into output: String, gainDB: Double, limitDB: Double?, sampleRate: Int) throws {
        var chain = "volume=\(String(format: "%.3f", gainDB))dB:precision=double"
        if let limitDB {
            // A 5 ms look-ahead, with the output realigned so the subtitles stay on the audio.
            chain += ",alimiter=limit=\(String(format: "%.5f", pow(10, limitDB / 20))):attack=5:release=50:level=false:latency=true"
        }
        _ = try ffmpeg.run(["-y", "-i", input, "-af", chain, "-ar", "\(sampleRate)", "-c:a", "pcm_s16le", "-f", "wav", output])
    }

    /// The loudness and levels of the 16-bit PCM WAV file at `path`, measured in-process.
    @available(*, noasync, message: "reads the whole file")
    func measure(_ path: String, truePeak: Bool = true) throws(AudioToolError) -> LoudnessMeter.Reading {
        do {
            return try LoudnessMeter.measure(wavFileAt: path, truePeak: truePeak)
        } catch {
            throw AudioToolError(description: "cannot measure \(path): \(error)")
        }
    }

    @available(*, noasync, message: "reads the whole file")
    func measureTruePeak(_ path: String) throws(AudioToolError) -> Double {
        do {
            return try LoudnessMeter.truePeak(wavFileAt: path)
        } catch {
            throw AudioToolError(description: "cannot measure \(path): \(error)")
        }
    }

    /// The loudness of the file at `path` as ffmpeg's `ebur128` filter measures it (true peak,
    /// which costs an oversampling pass, or sample peak): the independent check of the meter.
    @available(*, noasync, message: "runs ffmpeg and waits; call it off the cooperative pool")
    public func measureWithFFmpeg(_ path: String, truePeak: Bool) throws -> LoudnessMeasurement {
        try Self.summary(try ffmpeg.run(["-i", path, "-af", "ebur128=peak=\(truePeak ? "true" : "sample")", "-f", "null", "-"]))
    }

    /// Parses the summary the `ebur128` filter prints last on standard error.
    static func summary(_ stderr: String) throws(AudioToolError) -> LoudnessMeasurement {
        guard let range = stderr.range(of: "Summary:", options: .backwards) else {
            throw AudioToolError(description: "ffmpeg printed no ebur128 summary: \(FFmpegTool.tail(stderr))")
        }
        let lines = stderr[range.upperBound...].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        func value(_ label: String, after heading: String? = nil) throws(AudioToolError) -> Double {
            var rest = lines[...]
            if let heading {
                guard let at = rest.firstIndex(where: { $0.hasPrefix(heading) }) else {
                    throw AudioToolError(description: "ffmpeg's ebur128 summary has no \(heading)")
                }
                rest = rest[at...]
            }
            guard let line = rest.first(where: { $0.hasPrefix(label) }),
                  let number = line.dropFirst(label.count).split(separator: " ").first.flatMap({ Double($0) }) else {
                throw AudioToolError(description: "ffmpeg's ebur128 summary has no number for \(label)")
            }
            return number
        }
        let truePeak = lines.contains { $0.hasPrefix("True peak:") }
        guard truePeak || lines.contains(where: { $0.hasPrefix("Sample peak:") }) else {
            throw AudioToolError(description: "ffmpeg's ebur128 summary has no peak")
        }
        return LoudnessMeasurement(integratedLUFS: try value("I:"), peakDB: try value("Peak:", after: truePeak ? "True peak:" : "Sample peak:"),
                                   peakIsTrue: truePeak, loudnessRange: try value("LRA:"),
                                   threshold: try value("Threshold:", after: "Integrated loudness:"))
    }
}
