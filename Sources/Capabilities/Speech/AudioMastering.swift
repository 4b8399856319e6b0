import Foundation

/// Masters a WAV for an audiobook store (``AudioMasterLevels``, ACX by default) and encodes its
/// MP3, checking the MP3 itself:
///
/// 1. resample to the store's rate (44.1 kHz), apply one gain that brings the whole file's RMS to
///    the target, a look-ahead limiter at the peak ceiling less ``limiterMarginDB``, and lay the
///    ``RoomTone`` under everything (ffmpeg); when limiting cost more than ``toleranceDB`` of
///    RMS, apply again with that much more gain;
/// 2. encode the MP3 (LAME, constant bit rate) and decode it again: ACX measures the file it
///    receives, and encoding moves peaks. When the decoded MP3's sample or true peak passes the
///    ceiling, lower the limiter by the overshoot and make both files again (at most
///    ``maxEncodes`` times);
/// 3. measure the decoded MP3 as ACX does (``AudioMasterReading``) and name what still breaks a
///    requirement (``Outcome/problems``).
///
/// One gain for the whole read keeps every line's level relative to the others. The measuring is
/// done in-process (``AudioMasterMeter``); ffmpeg only applies, encodes and decodes. Blocking: it
/// runs ffmpeg and waits, so call it off the cooperative pool.
public struct AudioMastering: Sendable {
    public let ffmpeg: FFmpegTool
    public let levels: AudioMasterLevels
    /// The limiter works on samples; peaks between samples and the encoder's can pass it.
    public static let limiterMarginDB = 1.0
    /// How far from the target RMS the result may land before the gain is corrected.
    public static let toleranceDB = 0.5
    /// MP3 encodes at most (each after a master of the WAV).
    public static let maxEncodes = 3
    /// Gain corrections at most per encode.
    static let maxLevelPasses = 3

    public init(ffmpeg: FFmpegTool, levels: AudioMasterLevels = .acx) {
        self.ffmpeg = ffmpeg
        self.levels = levels
    }

    /// What mastering did and measured.
    public struct Outcome: Sendable, Hashable {
        /// The source as it came (RMS, sample peak, loudness).
        public var sourceRMSDBFS: Double
        public var sourceSamplePeakDBFS: Double
        /// The mastered WAV, and the MP3 decoded again (with its true peak).
        public var wav: AudioMasterReading
        public var mp3: AudioMasterReading
        /// The gain applied and where the limiter stood (dBFS).
        public var gainDB: Double
        public var limitDB: Double
        /// How many times the MP3 was encoded.
        public var encodes: Int
        /// What in the MP3 still breaks a requirement; empty when it passes.
        public var problems: [String]
    }

    /// Masters the WAV at `input` into `wav` and encodes it to `mp3` tagged with `tags` (both new
    /// files; a decoded copy of the MP3 is written beside it and removed).
    /// - Parameter measured: the input's levels, when the caller measured them while writing it.
    /// - Throws: ``AudioToolError`` when ffmpeg fails or a file cannot be measured.
    @available(*, noasync, message: "runs ffmpeg and waits; call it off the cooperative pool")
    public func master(_ input: String, wav: String, mp3: String, tags: AudioTags,
                       measured: LoudnessMeter.Reading? = nil) throws(AudioToolError) -> Outcome {
        let before: LoudnessMeter.Reading
        if let measured { before = measured } else {
            do { before = try LoudnessMeter.measure(wavFileAt: input, truePeak: false) } catch {
                throw AudioToolError(description: "cannot measure \(input): \(error)")
            }
        }
        guard before.rmsDBFS.isFinite else { throw AudioToolError(description: "\(input) is digital silence: nothing to master") }
        var gain = levels.targetRMSDBFS - before.rmsDBFS
        var limit = levels.peakCeilingDB - Self.limiterMarginDB
        let decoded = mp3 + ".decoded"
        defer { try? FileManager.default.removeItem(atPath: decoded) }
        var outcome: Outcome?
        for encode in 1...Self.maxEncodes {
            var written = try apply(input, into: wav, gainDB: gain, limitDB: limit)
            for _ in 1..<Self.maxLevelPasses {
                let shortfall = levels.targetRMSDBFS - written.rmsDBFS
                guard abs(shortfall) > Self.toleranceDB else { break }
                gain += shortfall
                written = try apply(input, into: wav, gainDB: gain, limitDB: limit)
            }
            try AudioEncoder(ffmpeg: ffmpeg).encode(wav, to: mp3, format: .mp3, tags: tags,
                                                    mp3: .cbr(kbps: levels.mp3BitRateKbps, sampleRate: levels.sampleRate))
            _ = try ffmpeg.run(["-y", "-i", mp3, "-map", "0:a", "-c:a", "pcm_s16le", "-f", "wav", decoded])
            let heard = try measure(decoded, truePeak: true)
            outcome = Outcome(sourceRMSDBFS: before.rmsDBFS, sourceSamplePeakDBFS: before.samplePeakDBFS, wav: written, mp3: heard,
                              gainDB: gain, limitDB: limit, encodes: encode, problems: levels.problems(heard))
            let over = heard.peakDB - levels.peakCeilingDB
            guard over > 0 else { break }
            limit -= over + 0.2
        }
        guard let outcome else { throw AudioToolError(description: "the master was never encoded") }
        return outcome
    }

    /// Writes `input` resampled to the store's rate, with `gainDB`, limited to `limitDB` of
    /// sample peak and with the room tone under it, as 16-bit PCM; returns its levels.
    @available(*, noasync, message: "runs ffmpeg and waits; call it off the cooperative pool")
    func apply(_ input: String, into output: String, gainDB: Double, limitDB: Double) throws(AudioToolError) -> AudioMasterReading {
        let rate = levels.sampleRate
        // Resampled first, so the limiter sees the samples that are kept; a 5 ms look-ahead,
        // realigned so the subtitles stay on the audio; the noise added after the limiter, at a
        // level that cannot move a peak by a thousandth of a dB.
        let graph = "[0:a]aresample=\(rate),volume=\(String(format: "%.3f", gainDB))dB:precision=double,"
            + "alimiter=limit=\(String(format: "%.5f", pow(10, limitDB / 20))):attack=5:release=50:level=false:latency=true[voice];"
            + "\(levels.roomTone.source(sampleRate: rate))[tone];"
            + "[voice][tone]amix=inputs=2:duration=first:dropout_transition=0:normalize=0[out]"
        _ = try ffmpeg.run(["-y", "-i", input, "-filter_complex", graph, "-map", "[out]", "-ar", "\(rate)",
                            "-c:a", "pcm_s16le", "-f", "wav", output])
        return try measure(output, truePeak: false)
    }

    @available(*, noasync, message: "reads the whole file")
    func measure(_ path: String, truePeak: Bool) throws(AudioToolError) -> AudioMasterReading {
        do {
            return try AudioMasterMeter.measure(wavFileAt: path, levels: levels, truePeak: truePeak)
        } catch {
            throw AudioToolError(description: "cannot measure \(path): \(error)")
        }
    }
}
