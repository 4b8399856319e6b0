import Foundation

/// The files a table read can be delivered as besides its WAV master.
public enum AudioFileFormat: String, CaseIterable, Codable, Sendable, Hashable {
    /// PCM, the master every other format is encoded from.
    case wav
    /// MPEG-1 Layer III (LAME: VBR quality 4, or 192 kbit/s CBR at 44.1 kHz for the ACX master),
    /// ID3v2.3 title and artist, `CHAP` frames per chapter.
    case mp3
    /// An audiobook: AAC at 64 kbit/s in an MP4 container, with its chapter list.
    case m4b

    public var mimeType: String {
        switch self {
        case .wav: return "audio/wav"
        case .mp3: return "audio/mpeg"
        case .m4b: return "audio/mp4"
        }
    }
}

extension AudioFileFormat {
    /// The formats of a comma-separated list (`wav,mp3`, case and spaces ignored), as the
    /// `--formats` flag of `reparto submit`, `run` and `bench pipeline` takes them.
    /// - Throws: ``UnknownAudioFileFormat`` naming the first name that is not a format.
    public static func list(parsing text: String) throws(UnknownAudioFileFormat) -> [AudioFileFormat] {
        try text.split(separator: ",").map { (name) throws(UnknownAudioFileFormat) in
            guard let format = AudioFileFormat(rawValue: name.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw UnknownAudioFileFormat(name: String(name))
            }
            return format
        }
    }
}

/// A name in a `--formats` list that is not an ``AudioFileFormat``.
public struct UnknownAudioFileFormat: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name as given.
    public var name: String

    public var description: String {
        "unknown format '\(name)' in --formats (\(AudioFileFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
    }
}

/// What a listener's player shows: title, author and chapters.
public struct AudioTags: Sendable, Hashable {
    public struct Chapter: Sendable, Hashable {
        public var title: String
        public var start: Double
        public var end: Double

        public init(title: String, start: Double, end: Double) {
            (self.title, self.start, self.end) = (title, start, end)
        }
    }

    public var title: String
    public var artist: String?
    public var chapters: [Chapter]

    public init(title: String, artist: String? = nil, chapters: [Chapter] = []) {
        (self.title, self.artist, self.chapters) = (title, artist, chapters)
    }

    /// The tags as an ffmpeg metadata file (`;FFMETADATA1`): `=`, `;`, `#`, `\` and line breaks
    /// escaped with a backslash; chapter times in milliseconds.
    public var ffmetadata: String {
        func escaped(_ text: String) -> String {
            var out = ""
            for character in text {
                if "=;#\\\n".contains(character) { out.append("\\") }
                out.append(character == "\r" ? " " : character)
            }
            return out
        }
        var lines = [";FFMETADATA1", "title=\(escaped(title))"]
        if let artist { lines.append("artist=\(escaped(artist))") }
        for chapter in chapters where chapter.end > chapter.start {
            lines += ["", "[CHAPTER]", "TIMEBASE=1/1000", "START=\(Int((chapter.start * 1000).rounded()))",
                      "END=\(Int((chapter.end * 1000).rounded()))", "title=\(escaped(chapter.title))"]
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Encodes a WAV master into MP3 or M4B with its tags and chapters (ffmpeg, LAME and its AAC
/// encoder). Blocking: call it off the cooperative pool.
public struct AudioEncoder: Sendable {
    public let ffmpeg: FFmpegTool

    /// How LAME encodes an MP3.
    public enum MP3Mode: Sendable, Hashable {
        /// Variable bit rate at LAME's quality (0 best … 9), at the WAV's sample rate.
        case vbr(quality: Int)
        /// Constant bit rate (kbit/s) at `sampleRate`, as audiobook stores ask (ACX: 192, 44 100).
        case cbr(kbps: Int, sampleRate: Int)

        /// The podcast master's MP3.
        public static let standard = MP3Mode.vbr(quality: 4)
    }

    public init(ffmpeg: FFmpegTool) {
        self.ffmpeg = ffmpeg
    }

    /// Writes `wav` as `format` to `output` (a new file), tagged with `tags`; an MP3 as `mp3` says.
    /// - Throws: ``AudioToolError`` when ffmpeg fails.
    @available(*, noasync, message: "runs ffmpeg and waits; call it off the cooperative pool")
    public func encode(_ wav: String, to output: String, format: AudioFileFormat, tags: AudioTags,
                       mp3: MP3Mode = .standard) throws(AudioToolError) {
        let metadata = output + ".ffmetadata"
        do { try Data(tags.ffmetadata.utf8).write(to: URL(fileURLWithPath: metadata)) } catch {
            throw AudioToolError(description: "cannot write \(metadata): \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(atPath: metadata) }
        var codec: [String]
        switch format {
        case .wav: codec = ["-c:a", "pcm_s16le", "-f", "wav"]
        case .mp3:
            switch mp3 {
            case .vbr(let quality): codec = ["-c:a", "libmp3lame", "-q:a", "\(min(max(quality, 0), 9))"]
            // `-b:a` without `-q:a` or `-abr` is LAME's CBR; the Info (not Xing) header says so.
            case .cbr(let kbps, let rate): codec = ["-c:a", "libmp3lame", "-b:a", "\(kbps)k", "-ar", "\(rate)"]
            }
            codec += ["-id3v2_version", "3", "-f", "mp3"]
        case .m4b: codec = ["-c:a", "aac", "-b:a", "64k", "-f", "ipod"]
        }
        _ = try ffmpeg.run(["-y", "-i", wav, "-i", metadata, "-map", "0:a", "-map_metadata", "1", "-map_chapters", "1"]
                           + codec + [output])
    }
}
