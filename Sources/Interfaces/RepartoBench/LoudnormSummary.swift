import Foundation
import Speech

/// What ffmpeg's `loudnorm` filter prints with `print_format=json` (its last `{…}` on standard
/// error): the first pass's measurement, which the second pass is given, and the second pass's
/// result.
struct LoudnormSummary: Sendable, Equatable {
    var inputI: Double
    var inputTP: Double
    var inputLRA: Double
    var inputThreshold: Double
    var outputI: Double
    var outputTP: Double
    var targetOffset: Double
    /// `Linear` or `Dynamic`: whether loudnorm could apply one gain or had to compress.
    var normalizationType: String

    /// Parses the summary at the end of `stderr`.
    /// - Throws: ``BenchError`` when there is none, or a field is missing or not a finite number
    ///   (naming the field).
    static func parse(_ stderr: String) throws -> LoudnormSummary {
        guard let open = stderr.range(of: "{", options: .backwards),
              let close = stderr.range(of: "}", options: .backwards, range: open.upperBound..<stderr.endIndex),
              let fields = try? JSONDecoder().decode([String: String].self, from: Data(stderr[open.lowerBound..<close.upperBound].utf8))
        else { throw BenchError("ffmpeg's loudnorm printed no JSON summary") }
        func number(_ name: String) throws -> Double {
            guard let text = fields[name] else { throw BenchError("loudnorm's summary has no \(name)") }
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
                throw BenchError("loudnorm's \(name) is not a finite number: \(text.prefix(40))")
            }
            return value
        }
        return LoudnormSummary(inputI: try number("input_i"), inputTP: try number("input_tp"), inputLRA: try number("input_lra"),
                               inputThreshold: try number("input_thresh"), outputI: try number("output_i"),
                               outputTP: try number("output_tp"), targetOffset: try number("target_offset"),
                               normalizationType: fields["normalization_type"] ?? "")
    }

    /// The second pass's filter: the target, this (first-pass) measurement, and `linear=true`
    /// (one gain when the target allows it, as the pipeline applies one gain).
    func secondPass(_ target: LoudnessTarget) -> String {
        let measured = String(format: "measured_I=%.2f:measured_TP=%.2f:measured_LRA=%.2f:measured_thresh=%.2f:offset=%.2f",
                              inputI, inputTP, inputLRA, inputThreshold, targetOffset)
        return Self.filter(target) + ":" + measured + ":linear=true:print_format=json"
    }

    /// The first pass's filter: the target and a JSON summary.
    static func firstPass(_ target: LoudnessTarget) -> String { filter(target) + ":print_format=json" }

    private static func filter(_ target: LoudnessTarget) -> String {
        String(format: "loudnorm=I=%.1f:TP=%.1f:LRA=%.1f", target.integratedLUFS, target.truePeakCeilingDBTP, target.loudnessRange)
    }
}
