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
    public let ffmpeg: URL
    public let target: LoudnessTarget

    public init(ffmpeg: URL, target: LoudnessTarget = .standard) {
        self.ffmpeg = ffmpeg
        self.target = target
    }

    /// ffmpeg from `REPARTO_FFMPEG`, else the first `ffmpeg` on `PATH`; nil when there is none.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> LoudnessNormalizer? {
        if let path = environment["REPARTO_FFMPEG"], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? LoudnessNormalizer(ffmpeg: URL(fileURLWithPath: path)) : nil
        }
        for directory in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return LoudnessNormalizer(ffmpeg: URL(fileURLWithPath: candidate)) }
        }
        return nil
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
        let first = try Self.report(try run(["-i", input, "-af", "\(filter(target.integratedLUFS)):print_format=json", "-f", "null", "-"]))
        let before = first.input
        let measured = "measured_I=\(before.integratedLUFS):measured_TP=\(before.truePeakDBTP)"
            + ":measured_LRA=\(before.loudnessRange):measured_thresh=\(before.threshold):offset=\(first.offset)"
        func apply(_ integrated: Double) throws -> Report {
            try Self.report(try run(["-y", "-i", input, "-af", "\(filter(integrated)):\(measured):linear=true:print_format=json",
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
        else { throw AudioToolError(description: "ffmpeg printed no loudnorm measurement: \(Self.tail(stderr))") }
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

    /// Runs ffmpeg quietly and returns its standard error.
    private func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = ffmpeg
        process.arguments = ["-hide_banner", "-nostats", "-nostdin"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw AudioToolError(description: "cannot run \(ffmpeg.path): \(error.localizedDescription)") }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw AudioToolError(description: "ffmpeg exited with \(process.terminationStatus): \(Self.tail(text))")
        }
        return text
    }

    static func tail(_ text: String) -> String {
        String(text.split(separator: "\n").suffix(2).joined(separator: " / ").suffix(300))
    }
}
