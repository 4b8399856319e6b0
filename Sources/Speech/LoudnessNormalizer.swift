import Foundation

/// What loudness normalization aims at: EBU R128 / podcast practice, −16 LUFS integrated with the
/// true peak at most −1 dBTP (ffmpeg's `loudnorm` is asked for −1.5 for a margin).
public struct LoudnessTarget: Sendable, Hashable, Codable {
    public var integratedLUFS: Double = -16
    public var truePeakCeilingDBTP: Double = -1
    public var loudnessRange: Double = 11
    public static let standard = LoudnessTarget()
}

/// A loudness measurement (ITU-R BS.1770 / EBU R128).
public struct LoudnessMeasurement: Sendable, Hashable, Codable {
    public var integratedLUFS: Double
    public var truePeakDBTP: Double
    public var loudnessRange: Double
    public var threshold: Double
}

/// A tool (ffmpeg) that failed, in one line: its exit status and the end of what it said.
public struct AudioToolError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
}

/// Two-pass loudness normalization with ffmpeg's `loudnorm` filter: the first pass measures, the
/// second applies the gain (linear when the true-peak ceiling allows it, else loudnorm's dynamic
/// mode, a gentle limiter) and writes 16-bit PCM at the input's sample rate. Blocking: it runs
/// ffmpeg and waits, so call it off the cooperative pool.
public struct LoudnessNormalizer: Sendable {
    public let ffmpeg: FFmpegTool
    public let target: LoudnessTarget

    public init(ffmpeg: FFmpegTool, target: LoudnessTarget = .standard) {
        self.ffmpeg = ffmpeg
        self.target = target
    }

    /// What normalization did: the measurement before, ffmpeg's figures after, and the mode.
    public struct Outcome: Sendable, Hashable {
        public var before: LoudnessMeasurement
        public var after: LoudnessMeasurement
        /// `linear` (one gain for the whole file) or `dynamic` (loudnorm limited the peaks).
        public var mode: String
    }

    /// Normalizes the WAV file at `input` into `output` (a new file) at `sampleRate`.
    /// - Throws: ``AudioToolError`` when ffmpeg fails or prints no measurement.
    @available(*, noasync, message: "runs ffmpeg and waits; call it off the cooperative pool")
    public func normalize(_ input: String, into output: String, sampleRate: Int) throws -> Outcome {
        func filter(_ integrated: Double) -> String {
            "loudnorm=I=\(integrated):TP=\(target.truePeakCeilingDBTP - 0.5):LRA=\(target.loudnessRange)"
        }
        let first = try Self.report(try ffmpeg.run(["-i", input, "-af", "\(filter(target.integratedLUFS)):print_format=json", "-f", "null", "-"]))
        let before = first.input
        let measured = "measured_I=\(before.integratedLUFS):measured_TP=\(before.truePeakDBTP)"
            + ":measured_LRA=\(before.loudnessRange):measured_thresh=\(before.threshold):offset=\(first.offset)"
        func apply(_ integrated: Double) throws -> Report {
            try Self.report(try ffmpeg.run(["-y", "-i", input, "-af", "\(filter(integrated)):\(measured):linear=true:print_format=json",
                                     "-ar", "\(sampleRate)", "-c:a", "pcm_s16le", "-f", "wav", output]))
        }
        var second = try apply(target.integratedLUFS)
        // Where loudnorm had to limit peaks it lands short of the target; one more pass aimed past
        // it by the shortfall (loudnorm accepts −5 to −70) brings it within a few tenths.
        let shortfall = target.integratedLUFS - second.output.integratedLUFS
        if abs(shortfall) > 0.5 { second = try apply(min(-5, target.integratedLUFS + shortfall)) }
        return Outcome(before: before, after: second.output, mode: second.mode)
    }

    /// What `loudnorm` prints with `print_format=json`.
    struct Report: Sendable, Equatable {
        var input: LoudnessMeasurement
        var output: LoudnessMeasurement
        var mode: String
        var offset: Double
    }

    /// Parses the last JSON object in ffmpeg's standard error (`loudnorm` prints its figures as strings).
    static func report(_ stderr: String) throws(AudioToolError) -> Report {
        guard let open = stderr.range(of: "{", options: .backwards), let close = stderr.range(of: "}", options: .backwards),
              open.lowerBound < close.lowerBound,
              let object = try? JSONSerialization.jsonObject(with: Data(stderr[open.lowerBound...close.lowerBound].utf8)) as? [String: String]
        else { throw AudioToolError(description: "ffmpeg printed no loudnorm measurement: \(FFmpegTool.tail(stderr))") }
        func number(_ key: String) throws(AudioToolError) -> Double {
            guard let text = object[key], let value = Double(text) else {
                throw AudioToolError(description: "ffmpeg's loudnorm measurement has no number for \(key)")
            }
            return value
        }
        return Report(
            input: LoudnessMeasurement(integratedLUFS: try number("input_i"), truePeakDBTP: try number("input_tp"),
                                       loudnessRange: try number("input_lra"), threshold: try number("input_thresh")),
            output: LoudnessMeasurement(integratedLUFS: try number("output_i"), truePeakDBTP: try number("output_tp"),
                                        loudnessRange: try number("output_lra"), threshold: try number("output_thresh")),
            mode: object["normalization_type"] ?? "unknown", offset: try number("target_offset"))
    }
}
