import Foundation

/// ffmpeg's own meters on an audio file, apart from anything the code under test measures:
/// `astats` (whole-file RMS, sample peak, RMS trough over 0.5 s windows: the noise floor),
/// `ebur128` (integrated loudness, true peak), `silencedetect` (−50 dB for 0.3 s) and `ffprobe`
/// (the stream and its packets). The tests of the masters check files against these.
public enum FFmpegMeter {
    /// What the meters printed that was not there or not a number.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public struct Levels: Sendable, CustomStringConvertible {
        public var rmsDBFS: Double
        public var samplePeakDBFS: Double
        public var noiseFloorDBFS: Double
        public var truePeakDBTP: Double
        public var integratedLUFS: Double
        /// Seconds as decoded (astats' sample count over the stream's rate).
        public var duration: Double
        public var description: String {
            "RMS \(rmsDBFS), peak \(samplePeakDBFS), floor \(noiseFloorDBFS), true peak \(truePeakDBTP), \(integratedLUFS) LUFS, \(duration) s"
        }
    }

    public struct Probe: Sendable {
        public var codec: String?
        public var sampleRate: Int?
        public var bitRate: Int?
        public var channels: Int?
        public var packetSizes: [Int]
        /// LAME marks a CBR file `Info`, a VBR one `Xing`.
        public var hasInfoHeader: Bool
    }

    static func run(_ tool: String, _ arguments: [String]) async throws -> CapturedOutput {
        let output = try await runSubprocess(URL(fileURLWithPath: "/usr/bin/env"), [tool] + arguments, timeout: 120)
        guard output.status == 0 else { throw Failure(description: "\(tool) failed: \(output.stderr.suffix(300))") }
        return output
    }

    /// The number after the last `label` in ffmpeg's output (`-inf` for silence).
    public static func number(after label: String, in text: String) throws -> Double {
        guard let line = text.split(separator: "\n").last(where: { $0.contains(label) }), let range = line.range(of: label) else {
            throw Failure(description: "no \(label) in ffmpeg's output")
        }
        let value = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
        let number = value.split(separator: " ").first.map(String.init) ?? value
        if number == "-inf" { return -.infinity }
        guard let parsed = Double(number) else { throw Failure(description: "\(label) \(value) is not a number") }
        return parsed
    }

    public static func levels(_ path: String) async throws -> Levels {
        guard let rate = try await probe(path).sampleRate, rate > 0 else { throw Failure(description: "no sample rate for \(path)") }
        let text = try await run("ffmpeg", ["-hide_banner", "-nostats", "-nostdin", "-i", path,
                                            "-af", "astats=metadata=0:length=0.5,ebur128=peak=true", "-f", "null", "-"]).stderr
        return Levels(rmsDBFS: try number(after: "RMS level dB:", in: text), samplePeakDBFS: try number(after: "Peak level dB:", in: text),
                      noiseFloorDBFS: try number(after: "RMS trough dB:", in: text), truePeakDBTP: try number(after: "Peak:", in: text),
                      integratedLUFS: try number(after: "I:", in: text),
                      duration: try number(after: "Number of samples:", in: text) / Double(rate))
    }

    /// The stretches quieter than −50 dB for at least 0.3 s, in order (one running to the end
    /// ends at the end).
    public static func silences(_ path: String) async throws -> [(start: Double, end: Double)] {
        let text = try await run("ffmpeg", ["-hide_banner", "-nostats", "-nostdin", "-i", path,
                                            "-af", "silencedetect=n=-50dB:d=0.3", "-f", "null", "-"]).stderr
        var spans: [(start: Double, end: Double)] = []
        var start: Double?
        for line in text.split(separator: "\n") {
            if line.contains("silence_start:") { start = try number(after: "silence_start:", in: String(line)) }
            if line.contains("silence_end:"), let begun = start {
                spans.append((begun, try number(after: "silence_end:", in: String(line))))
                start = nil
            }
        }
        return spans
    }

    public static func probe(_ path: String) async throws -> Probe {
        let streams = try await run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                "stream=codec_name,sample_rate,bit_rate,channels", "-of", "json", path]).stdoutData
        let stream = ((try JSONSerialization.jsonObject(with: streams) as? [String: Any])?["streams"] as? [[String: Any]])?.first ?? [:]
        let packets = try await run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size",
                                                "-of", "csv=p=0", path]).stdout
        let sizes = packets.split(whereSeparator: { $0 == "\n" || $0 == "," }).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let head = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 64 << 10) ?? Data()
        return Probe(codec: stream["codec_name"] as? String, sampleRate: (stream["sample_rate"] as? String).flatMap { Int($0) },
                     bitRate: (stream["bit_rate"] as? String).flatMap { Int($0) }, channels: stream["channels"] as? Int,
                     packetSizes: sizes, hasInfoHeader: head.range(of: Data("Info".utf8)) != nil && head.range(of: Data("Xing".utf8)) == nil)
    }
}
